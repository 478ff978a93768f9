/**
 * The online roles (server/src/updates/tuf/tuf-online.ts): snapshot and timestamp re-signed on
 * the injected clock once half their lifetime is gone, when targets moves, or when the online
 * key rotates; versions only grow, also across a restart (TUF spec §5.4.3, §5.5.5).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tuf } from '#protocol';
import { OnlineRoles } from '#server/updates/tuf/tuf-online.js';
import { newKey } from '#test/trust-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const key = newKey();
const signer: tuf.TufSigner = { publicHex: key.hex, sign: key.sign };

let dir: string;
let now = T0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tuf-online-'));
  now = T0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = () => OnlineRoles.open(dir, () => now, 24 * 3600);
const timestampOf = (bytes: Uint8Array) => tuf.parseEnvelope(bytes, 'timestamp');

describe('OnlineRoles', () => {
  it('keeps the timestamp until half its lifetime is gone, then signs version 2', async () => {
    const roles = await open();
    const first = await roles.current(1, signer);
    const ts = timestampOf(first);
    expect(ts.signed.version).toBe(1);
    expect(ts.signed.expiresMs).toBe(T0 + 24 * HOUR);
    now = T0 + 12 * HOUR - 1000;
    expect(await roles.current(1, signer)).toBe(first);
    now = T0 + 12 * HOUR;
    const second = timestampOf(await roles.current(1, signer));
    expect(second.signed.version).toBe(2);
    // Snapshot is kept (7 days, half not gone): the timestamp still names snapshot 1.
    expect(second.signed.snapshotMeta.version).toBe(1);
  });

  it('signs a new snapshot when targets moves, and names its length and sha256', async () => {
    const roles = await open();
    await roles.current(1, signer);
    const ts = timestampOf(await roles.current(2, signer));
    expect(ts.signed.snapshotMeta.version).toBe(2);
    expect(ts.signed.snapshotMeta.length).toBeGreaterThan(0);
    expect(ts.signed.snapshotMeta.hashes?.get('sha256')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('re-signs both with a rotated online key', async () => {
    const roles = await open();
    await roles.current(1, signer);
    const next = newKey();
    const ts = timestampOf(await roles.current(1, { publicHex: next.hex, sign: next.sign }));
    expect(ts.signatures[0]?.keyid).toBe(tuf.tufKeyId(next.hex));
    expect(ts.signed.snapshotMeta.version).toBe(2);
  });

  it('continues the versions after a restart', async () => {
    await (await open()).current(1, signer);
    now = T0 + 13 * HOUR;
    const ts = timestampOf(await (await open()).current(1, signer));
    expect(ts.signed.version).toBe(2);
  });

  it('never reuses a version another writer on the directory signed', async () => {
    const a = await open();
    await a.current(1, signer);
    const b = await open();
    await b.current(2, signer);
    const ts = timestampOf(await a.current(3, signer));
    expect(ts.signed.version).toBe(3);
    expect(ts.signed.snapshotMeta.version).toBe(3);
  });
});
