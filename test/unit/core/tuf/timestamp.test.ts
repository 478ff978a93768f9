import { describe, expect, it } from 'vitest';
import { SimRepo } from './sim-repo.js';
import { DAY, NOW, iso, newKey } from './tuf-kit.js';

async function refreshed(): Promise<SimRepo> {
  const repo = new SimRepo();
  await (await repo.client()).refresh();
  return repo;
}

describe('timestamp (TUF spec §5.4)', () => {
  it('refuses a timestamp version older than the trusted one (ROLLBACK)', async () => {
    const repo = await refreshed();
    repo.timestamp.version = 5;
    repo.publish();
    await (await repo.client()).refresh();
    repo.timestamp.version = 4;
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'ROLLBACK' });
    expect(repo.store.version('timestamp')).toBe(5);
  });

  it("refuses a snapshot version older than the trusted timestamp's (ROLLBACK)", async () => {
    const repo = await refreshed();
    repo.bump();
    await (await repo.client()).refresh();
    repo.snapshot.version = 1;
    repo.timestamp.version += 1;
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'ROLLBACK' });
  });

  it('keeps the trusted timestamp when the repository serves the same version', async () => {
    const repo = await refreshed();
    const trusted = repo.store.files.get('timestamp');
    repo.timestamp.expires = iso(NOW + 2 * DAY);
    repo.publish();
    await (await repo.client()).refresh();
    expect(repo.store.files.get('timestamp')).toEqual(trusted);
  });

  it('refuses an expired timestamp (EXPIRED) and keeps the trusted one', async () => {
    const repo = await refreshed();
    repo.timestamp = { version: 2, expires: iso(NOW - 1000) };
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'EXPIRED' });
    expect(repo.store.version('timestamp')).toBe(1);
  });

  it('refuses a timestamp expiring beyond maxTimestampLifetimeS (TIMESTAMP_LIFETIME)', async () => {
    const repo = new SimRepo();
    repo.timestamp.expires = iso(NOW + 8 * DAY);
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'TIMESTAMP_LIFETIME',
    });
    expect(repo.store.files.has('timestamp')).toBe(false);
  });

  it('accepts a 30-day timestamp when the lifetime bound is widened', async () => {
    const repo = new SimRepo();
    repo.timestamp.expires = iso(NOW + 30 * DAY);
    repo.publish();
    await (await repo.client(NOW, { maxTimestampLifetimeS: 31 * 24 * 3600 })).refresh();
    expect(repo.store.version('timestamp')).toBe(1);
  });

  it('accepts any timestamp lifetime when the bound is off (Infinity)', async () => {
    const repo = new SimRepo();
    repo.timestamp.expires = iso(NOW + 20 * 365 * DAY);
    repo.publish();
    await (await repo.client(NOW, { maxTimestampLifetimeS: Number.POSITIVE_INFINITY })).refresh();
    expect(repo.store.version('timestamp')).toBe(1);
  });

  it('does not refuse metadata from a repository whose clock runs ahead (no issue date in TUF)', async () => {
    const repo = new SimRepo();
    // Expiry only: a timestamp "issued" tomorrow and expiring in 6 days is fine.
    repo.timestamp.expires = iso(NOW + 6 * DAY);
    repo.publish();
    await (await repo.client()).refresh();
    expect(repo.store.version('timestamp')).toBe(1);
  });

  it('refuses a timestamp signed only by a key root never listed (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    repo.keys.timestamp = [newKey()];
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it('refuses a timestamp signed by a key a newer root dropped (KEY_RETIRED)', async () => {
    const repo = new SimRepo();
    const old = repo.keys.timestamp;
    repo.rotateRoot(() => (repo.keys.timestamp = [newKey()]));
    repo.keys.timestamp = old;
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'KEY_RETIRED',
      details: { retired_keyid: old[0]!.keyid },
    });
  });

  it('counts a key dropped and listed again by a later root (no KEY_RETIRED)', async () => {
    const repo = new SimRepo();
    const old = repo.keys.timestamp;
    repo.rotateRoot(() => (repo.keys.timestamp = [newKey()]));
    repo.rotateRoot(() => (repo.keys.timestamp = old));
    repo.publish();
    await (await repo.client()).refresh();
    expect(repo.store.version('root')).toBe(3);
  });

  it('refuses a timestamp below its threshold (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    const [key] = repo.keys.timestamp;
    repo.rotateRoot(() => {
      repo.keys.timestamp = [key!, newKey()];
      repo.thresholds.timestamp = 2;
    });
    repo.keys.timestamp = [key!];
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it('refuses a timestamp larger than timestampMaxBytes (TOO_LARGE)', async () => {
    const repo = new SimRepo();
    await expect(
      (await repo.client(NOW, { timestampMaxBytes: 100 })).refresh(),
    ).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
  });

  it('recovers from a fast-forward attack when the timestamp keys rotate (TUF spec §5.3.11)', async () => {
    const repo = await refreshed();
    repo.timestamp.version = 100;
    repo.publish();
    await (await repo.client()).refresh();
    repo.rotateRoot(() => (repo.keys.timestamp = [newKey()]));
    repo.timestamp.version = 1;
    repo.publish();
    await (await repo.client()).refresh();
    expect(repo.store.version('timestamp')).toBe(1);
  });
});
