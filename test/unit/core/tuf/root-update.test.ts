import { describe, expect, it } from 'vitest';
import { SimRepo } from './sim-repo.js';
import { BASE, DAY, NOW, iso, newKey, signed } from './tuf-kit.js';

describe('root update loop (TUF spec §5.3)', () => {
  it('walks N+1, N+2 ... and stores the last root', async () => {
    const repo = new SimRepo();
    repo.rotateRoot(() => (repo.keys.root = [newKey()]));
    repo.rotateRoot(() => (repo.keys.root = [newKey()]));
    await (await repo.client()).refresh();
    expect(repo.store.version('root')).toBe(3);
  });

  it('ignores a key of an unknown type in root N+1 instead of refusing the root (TUF spec §4.2)', async () => {
    const repo = new SimRepo();
    const real = repo.keys.root[0]!;
    const unknown = {
      ...newKey(),
      json: { keytype: 'sphincs', scheme: 'sphincs-sha256', keyval: { public: 'ab' } },
    };
    repo.rotateRoot(() => (repo.keys.root = [real, unknown]));
    await (await repo.client()).refresh();
    expect(repo.store.version('root')).toBe(2);
  });

  it('refuses root N+1 signed by none of the keys root N lists (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    repo.keys.root = [repo.keys.root[0]!, newKey()];
    repo.rootVersion = 2;
    // v2 signed by the new key alone: v1's only key did not sign it.
    repo.publishRoot([], [repo.keys.root[1]!]);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
    expect(repo.store.version('root')).toBe(1);
  });

  it('refuses root N+1 signed by too few of the keys root N lists (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    const [k1] = repo.keys.root;
    const k2 = newKey();
    repo.rotateRoot(() => {
      repo.keys.root = [k1!, k2];
      repo.thresholds.root = 2;
    });
    // v3 signed by k1 alone: v2 asks for two of {k1, k2}.
    repo.rootVersion = 3;
    repo.publishRoot([], [k1!]);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
    expect(repo.store.version('root')).toBe(2);
  });

  it('refuses root N+1 signed only by keys it retires itself (KEY_RETIRED)', async () => {
    const repo = new SimRepo();
    const old = repo.keys.root;
    repo.keys.root = [newKey()];
    repo.rootVersion = 2;
    repo.publishRoot([], old);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'KEY_RETIRED' });
  });

  it('refuses root N+2 signed only by a root key root N+1 dropped (KEY_RETIRED)', async () => {
    const repo = new SimRepo();
    const old = repo.keys.root;
    repo.rotateRoot(() => (repo.keys.root = [newKey()]));
    repo.rootVersion = 3;
    repo.publishRoot([], old);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'KEY_RETIRED' });
    expect(repo.store.version('root')).toBe(2);
  });

  it('refuses root N+1 not signed by a threshold of its own keys (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    const old = repo.keys.root;
    repo.keys.root = [...old, newKey()];
    repo.thresholds.root = 2;
    repo.rootVersion = 2;
    // v1's threshold (its one key) is met; v2's own threshold of two is not.
    repo.publishRoot([], old);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
    expect(repo.store.version('root')).toBe(1);
  });

  it('refuses a root served as N+1 whose version is not N+1 (BAD_VERSION)', async () => {
    const repo = new SimRepo();
    repo.rootVersion = 3;
    const bytes = signed(repo.rootBody(), repo.keys.root);
    repo.serve('2.root.json', bytes);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'BAD_VERSION' });
  });

  it('refuses an expired final root (EXPIRED), after storing it', async () => {
    const repo = new SimRepo();
    repo.rotateRoot(() => (repo.rootExpires = iso(NOW - DAY)));
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'EXPIRED' });
    expect(repo.store.version('root')).toBe(2);
  });

  it('accepts an expired intermediate root when the final one is fresh', async () => {
    const repo = new SimRepo();
    repo.rotateRoot(() => (repo.rootExpires = iso(NOW - DAY)));
    repo.rotateRoot(() => (repo.rootExpires = iso(NOW + DAY)));
    await (await repo.client()).refresh();
    expect(repo.store.version('root')).toBe(3);
  });

  it('stops after maxRootRotations new roots (TOO_MANY_ROOT_ROTATIONS)', async () => {
    const repo = new SimRepo();
    for (let i = 0; i < 3; i += 1) repo.rotateRoot(() => undefined);
    const client = await repo.client(NOW, { maxRootRotations: 2 });
    await expect(client.refresh()).rejects.toMatchObject({ code: 'TOO_MANY_ROOT_ROTATIONS' });
    expect(repo.store.version('root')).toBe(3);
  });

  it('deletes the stored timestamp and snapshot when their keys rotate (TUF spec §5.3.11)', async () => {
    const repo = new SimRepo();
    await (await repo.client()).refresh();
    repo.rotateRoot(() => (repo.keys.timestamp = [newKey()]));
    repo.fetcher.files.delete(`${BASE}timestamp.json`);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(repo.store.files.has('timestamp')).toBe(false);
    expect(repo.store.files.has('snapshot')).toBe(false);
  });

  it('deletes the stored timestamp and snapshot on a rotation even when a later root fails', async () => {
    const repo = new SimRepo();
    await (await repo.client()).refresh();
    repo.rotateRoot(() => (repo.keys.snapshot = [newKey()]));
    repo.rootVersion = 4; // served as 3.root.json: refused
    repo.serve('3.root.json', signed(repo.rootBody(), repo.keys.root));
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'BAD_VERSION' });
    expect(repo.store.version('root')).toBe(2);
    expect(repo.store.files.has('timestamp')).toBe(false);
    expect(repo.store.files.has('snapshot')).toBe(false);
  });

  it('refuses a stored root signed by none of its own keys (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    const body = repo.rootBody();
    await repo.store.write('root', signed(body, [newKey()]));
    await expect(repo.client()).rejects.toMatchObject({ code: 'THRESHOLD_NOT_MET' });
  });
});
