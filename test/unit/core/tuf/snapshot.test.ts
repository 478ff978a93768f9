import { describe, expect, it } from 'vitest';
import { SimRepo } from './sim-repo.js';
import { BASE, DAY, NOW, iso, metaOf, newKey, signed } from './tuf-kit.js';

/** Serves `bytes` as snapshot.json under a timestamp v2 that names `meta`. */
function serveSnapshot(repo: SimRepo, bytes: Uint8Array, meta: Record<string, unknown>): void {
  repo.serve('snapshot.json', bytes);
  const body = {
    _type: 'timestamp',
    spec_version: '1.0.31',
    version: repo.timestamp.version,
    expires: repo.timestamp.expires,
    meta: { 'snapshot.json': meta },
  };
  repo.serve('timestamp.json', signed(body, repo.keys.timestamp));
}

function snapshotBody(version: number, meta: Record<string, unknown>) {
  return { _type: 'snapshot', spec_version: '1.0.31', version, expires: iso(NOW + DAY), meta };
}

describe('snapshot (TUF spec §5.5)', () => {
  it('refuses a snapshot whose length differs from timestamp (LENGTH_MISMATCH)', async () => {
    const repo = new SimRepo();
    const bytes = repo.published.get('snapshot.json')!;
    serveSnapshot(repo, bytes, { ...metaOf(bytes, 1), length: bytes.length + 1 });
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'LENGTH_MISMATCH',
    });
  });

  it('refuses a snapshot whose hash differs from timestamp (HASH_MISMATCH)', async () => {
    const repo = new SimRepo();
    const bytes = repo.published.get('snapshot.json')!;
    serveSnapshot(repo, bytes, { ...metaOf(bytes, 1), hashes: { sha256: '00'.repeat(32) } });
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
  });

  it('refuses a snapshot whose version is not the one timestamp names (BAD_VERSION)', async () => {
    const repo = new SimRepo();
    const meta = { 'targets.json': { version: 1 } };
    const bytes = signed(snapshotBody(2, meta), repo.keys.snapshot);
    serveSnapshot(repo, bytes, metaOf(bytes, 1));
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'BAD_VERSION' });
  });

  it('refuses a snapshot not signed by the snapshot keys (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    const bytes = signed(snapshotBody(1, { 'targets.json': { version: 1 } }), [newKey()]);
    serveSnapshot(repo, bytes, metaOf(bytes, 1));
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it('refuses an expired snapshot (EXPIRED)', async () => {
    const repo = new SimRepo();
    repo.snapshot.expires = iso(NOW - 1000);
    repo.publish();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'EXPIRED' });
  });

  it('refuses a snapshot giving a targets role a lower version than trusted (ROLLBACK)', async () => {
    const repo = new SimRepo();
    repo.bump('targets');
    await (await repo.client()).refresh();
    repo.roles.get('targets')!.version = 1;
    repo.bump();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'ROLLBACK' });
    expect(repo.store.version('snapshot')).toBe(2);
  });

  it('refuses a snapshot that drops a role the trusted snapshot lists (ROLLBACK)', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'a' });
    repo.bump('targets');
    await (await repo.client()).refresh();
    repo.roles.delete('a');
    repo.bump();
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'ROLLBACK' });
  });

  it('refuses a snapshot larger than its cap when timestamp gives no length (TOO_LARGE)', async () => {
    const repo = new SimRepo();
    repo.withHashes = false;
    repo.publish();
    const client = await repo.client(NOW, { snapshotMaxBytes: 50 });
    await expect(client.refresh()).rejects.toMatchObject({ code: 'TOO_LARGE' });
    expect(repo.fetcher.requests).toContain(`${BASE}snapshot.json`);
  });
});
