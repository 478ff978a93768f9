/**
 * ManifestAnswers (server/src/updates/manifest-answers.ts, docs/PROTOCOL.md §2.7.6): an answer
 * pairs the freshness statement with the frame (key set links, release) the statement names,
 * also when a rotation or a publish lands while the statement is being renewed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FreshnessSigner } from '#server/updates/keys/freshness-signer.js';
import type { KeyChainStore } from '#server/updates/keys/key-chain-store.js';
import { ManifestAnswers, PAIRING_TURNS } from '#server/updates/manifest-answers.js';
import type { Release, ReleaseStore } from '#server/updates/publish/release-store.js';
import { newKey } from '#test/trust-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const release: Release = {
  manifest: { registry_version: '1.0.0', artifacts: [], expiresAtMs: Infinity },
  envelope: { payloadType: 'test/release', payload: 'cmVsZWFzZQ', signatures: [] },
  digest: 'a'.repeat(64),
  legacy: undefined,
};
const releases = { current: release } as unknown as ReleaseStore;

/** A chain whose newest link is `version` (only what ManifestAnswers reads). */
function chainAt(version: number): KeyChainStore {
  const link = { payloadType: 'test/keys', payload: `v${version}`, signatures: [] };
  return { newest: { version }, answerLinks: [link], links: [link] } as unknown as KeyChainStore;
}

interface Answer {
  keys: { payload: string }[];
  freshness: { payload: string };
}
const parse = (bytes: Buffer): { links: string[]; keysVersion: number } => {
  const answer = JSON.parse(bytes.toString('utf8')) as Answer;
  const statement = JSON.parse(
    Buffer.from(answer.freshness.payload, 'base64').toString('utf8'),
  ) as { keys_version: number };
  return { links: answer.keys.map((k) => k.payload), keysVersion: statement.keys_version };
};

let dir: string;
let freshness: FreshnessSigner;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'manifest-answers-'));
  freshness = await FreshnessSigner.open(dir, [newKey()], () => T0, 24 * 3600);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ManifestAnswers', () => {
  it('names the key set it carries when a rotation lands during the renewal', async () => {
    let chain = chainAt(9);
    const answers = new ManifestAnswers(() => chain, releases, freshness);
    // The renewal of the statement for set 9 is in flight (its sequence write is awaited).
    const pending = answers.answerFor(undefined);
    chain = chainAt(10);
    const answer = await pending;
    expect(parse(answer!.bytes())).toEqual({ links: ['v10'], keysVersion: 10 });
  });

  it('pairs a nonce answer the same way', async () => {
    let chain = chainAt(3);
    const answers = new ManifestAnswers(() => chain, releases, freshness);
    const pending = answers.answerFor('abcdefghijklmnop');
    chain = chainAt(4);
    expect(parse((await pending)!.bytes())).toEqual({ links: ['v4'], keysVersion: 4 });
  });

  it('answers 503 RELEASE_CHANGING with Retry-After when the state never holds still', async () => {
    let version = 0;
    // Every look at the chain finds a newer set: no statement ever names the frame's set.
    const answers = new ManifestAnswers(() => chainAt(++version), releases, freshness);
    await expect(answers.answerFor(undefined)).rejects.toMatchObject({
      statusCode: 503,
      code: 'RELEASE_CHANGING',
      headers: { 'retry-after': '1' },
    });
    expect(version).toBeGreaterThanOrEqual(2 * PAIRING_TURNS);
  });
});
