import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FreshnessSigner } from '#server/updates/keys/freshness-signer.js';
import {
  envelopeFromJson,
  FRESHNESS_PAYLOAD_TYPE,
  parseFreshness,
  roleOf,
  verifyRole,
} from '#protocol';
import { newKey } from '#test/trust-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const target = { releaseSha256: 'a'.repeat(64), keysVersion: 1 };
const key = newKey();

let dir: string;
let now = T0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'freshness-'));
  now = T0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = () => FreshnessSigner.open(dir, [key], () => now, 24 * 3600);
const statementOf = (json: Buffer, signer: { hex: string } | null = key) => {
  const env = envelopeFromJson(JSON.parse(json.toString()), 'freshness');
  if (signer !== null)
    verifyRole(env, roleOf(1, [signer.hex]), FRESHNESS_PAYLOAD_TYPE, 'freshness');
  return parseFreshness(env.payload);
};

describe('FreshnessSigner', () => {
  it('signs sequence 1 over the target and persists the sequence first', async () => {
    const signer = await open();
    const s = await signer.current(target);
    const parsed = statementOf(s.json);
    expect(parsed).toMatchObject({
      release_sha256: target.releaseSha256,
      keys_version: 1,
      sequence: 1,
    });
    expect(parsed.expiresAtMs - parsed.issuedAtMs).toBe(24 * HOUR);
    expect(JSON.parse(await readFile(join(dir, 'freshness.json'), 'utf8'))).toEqual({
      sequence: 1,
    });
  });

  it('serves the same statement until half of its lifetime is gone, then re-signs', async () => {
    const signer = await open();
    const first = await signer.current(target);
    now += 12 * HOUR - 1;
    expect(await signer.current(target)).toBe(first);
    now += 1;
    const second = await signer.current(target);
    expect(statementOf(second.json).sequence).toBe(2);
    expect(second.issuedAtMs).toBe(now);
  });

  it('re-signs at once for another release or key set (a publish or a rotation)', async () => {
    const signer = await open();
    await signer.current(target);
    const other = await signer.current({ ...target, releaseSha256: 'b'.repeat(64) });
    expect(statementOf(other.json)).toMatchObject({ sequence: 2, release_sha256: 'b'.repeat(64) });
    const rotated = await signer.current({ ...target, keysVersion: 2 });
    expect(statementOf(rotated.json)).toMatchObject({ sequence: 3, keys_version: 2 });
  });

  it('continues from the persisted sequence after a restart (it never goes down)', async () => {
    const first = await open();
    await first.current(target);
    now += 13 * HOUR;
    await first.current(target);
    const again = await open();
    expect(again.sequence).toBe(2);
    expect(statementOf((await again.current(target)).json).sequence).toBe(3);
  });

  it('renews once for many concurrent requests', async () => {
    const signer = await open();
    const all = await Promise.all(Array.from({ length: 20 }, () => signer.current(target)));
    expect(new Set(all.map((s) => s.json.toString())).size).toBe(1);
    expect(signer.sequence).toBe(1);
  });

  it('re-signs when the clock went back (a dev reset)', async () => {
    now += 6 * HOUR;
    const signer = await open();
    await signer.current(target);
    now = T0;
    expect(statementOf((await signer.current(target)).json).sequence).toBe(2);
  });

  it('keeps a statement servable over 400 days (4-day steps) with at least half a lifetime left', async () => {
    const signer = await open();
    let last = 0;
    for (let day = 0; day < 400; day += 4) {
      now = T0 + day * 24 * HOUR + 5 * HOUR;
      const s = await signer.current(target);
      expect(s.expiresAtMs - now).toBeGreaterThanOrEqual(12 * HOUR);
      const { sequence } = statementOf(s.json, null);
      expect(sequence).toBeGreaterThan(last);
      last = sequence;
    }
  });

  it('binds a nonce statement to the request: same sequence and expiry, issued now, the nonce', async () => {
    const signer = await open();
    const base = await signer.current(target);
    now += HOUR;
    const bound = statementOf(signer.withNonce(base, 'abcdefghijklmnop-_12'));
    expect(bound).toMatchObject({
      sequence: 1,
      nonce: 'abcdefghijklmnop-_12',
      expires_at: base.statement.expires_at,
    });
    expect(bound.issuedAtMs).toBe(now);
    expect(signer.sequence).toBe(1);
  });

  it('signs with new freshness keys after setSigners (a rotation)', async () => {
    const signer = await open();
    await signer.current(target);
    const next = newKey();
    signer.setSigners([next]);
    const s = await signer.current(target);
    expect(s.envelope.signatures.map((x) => x.keyid)).toEqual([next.keyid]);
    expect(statementOf(s.json, next).sequence).toBe(2);
  });
});
