import { describe, expect, it } from 'vitest';
import { SimRepo } from './sim-repo.js';
import { BASE, DAY, NOW, TARGETS, iso, newKey, signed } from './tuf-kit.js';

describe('targets and target files (TUF spec §5.6, §5.7)', () => {
  it('finds and downloads a target, verified', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'dir/app.bin', 'payload');
    repo.bump('targets');
    const client = await repo.client();
    const info = await client.requireTargetInfo('dir/app.bin');
    const bytes = await client.downloadTarget(info, TARGETS);
    expect(Buffer.from(bytes).toString()).toBe('payload');
  });

  it('fetches HASH.NAME target files under consistent snapshots (TUF spec §5.7.3)', async () => {
    const repo = new SimRepo();
    repo.consistent = true;
    repo.rotateRoot(() => undefined);
    repo.addTarget('targets', 'dir/app.bin', 'payload');
    repo.bump('targets');
    const client = await repo.client();
    const info = await client.requireTargetInfo('dir/app.bin');
    expect(client.targetUrl(info, TARGETS)).toMatch(/\/targets\/dir\/[0-9a-f]{64}\.app\.bin$/);
    await client.downloadTarget(info, TARGETS);
  });

  it('refuses a target file of the wrong length (LENGTH_MISMATCH)', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'app.bin', 'payload');
    repo.bump('targets');
    repo.fetcher.files.set(`${TARGETS}app.bin`, Buffer.from('payloa'));
    const client = await repo.client();
    const info = await client.requireTargetInfo('app.bin');
    await expect(client.downloadTarget(info, TARGETS)).rejects.toMatchObject({
      code: 'LENGTH_MISMATCH',
    });
  });

  it('refuses a target file of the right length but other bytes (HASH_MISMATCH)', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'app.bin', 'payload');
    repo.bump('targets');
    repo.fetcher.files.set(`${TARGETS}app.bin`, Buffer.from('PAYLOAD'));
    const client = await repo.client();
    const info = await client.requireTargetInfo('app.bin');
    await expect(client.downloadTarget(info, TARGETS)).rejects.toMatchObject({
      code: 'HASH_MISMATCH',
    });
  });

  it('refuses a target longer than listed at the fetch (TOO_LARGE)', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'app.bin', 'payload');
    repo.bump('targets');
    repo.fetcher.files.set(`${TARGETS}app.bin`, Buffer.from('payload and more'));
    const client = await repo.client();
    const info = await client.requireTargetInfo('app.bin');
    await expect(client.downloadTarget(info, TARGETS)).rejects.toMatchObject({ code: 'TOO_LARGE' });
  });

  it('refuses a target path no trusted role lists (TARGET_NOT_FOUND)', async () => {
    const repo = new SimRepo();
    const client = await repo.client();
    await expect(client.requireTargetInfo('missing')).rejects.toMatchObject({
      code: 'TARGET_NOT_FOUND',
    });
  });

  it('refuses targets whose version is not the one snapshot names (BAD_VERSION)', async () => {
    const repo = new SimRepo();
    repo.withHashes = false;
    repo.bump('targets'); // snapshot names targets v2, without hashes
    const body = {
      _type: 'targets',
      spec_version: '1.0.31',
      version: 3,
      expires: iso(NOW + DAY),
      targets: {},
    };
    repo.serve('targets.json', signed(body, repo.keys.targets));
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'BAD_VERSION' });
  });

  it('refuses expired targets (EXPIRED)', async () => {
    const repo = new SimRepo();
    repo.roles.get('targets')!.expires = iso(NOW - 1000);
    repo.bump('targets');
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'EXPIRED' });
  });

  it('refuses targets signed by a key root never listed (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    repo.roles.get('targets')!.signers = [newKey()];
    repo.bump('targets');
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it('refuses targets whose bytes differ from the hash snapshot lists (HASH_MISMATCH)', async () => {
    const repo = new SimRepo();
    const bytes = repo.published.get('targets.json')!;
    const tampered = Buffer.from(bytes);
    tampered[tampered.length - 2] = 0x20;
    repo.serve('targets.json', tampered);
    await expect((await repo.client()).refresh()).rejects.toMatchObject({ code: 'HASH_MISMATCH' });
  });

  it('refuses a snapshot that does not list top-level targets (ROLE_NOT_IN_SNAPSHOT)', async () => {
    const repo = new SimRepo();
    repo.roles.delete('targets');
    repo.publish();
    repo.serve(
      'targets.json',
      signed(
        {
          _type: 'targets',
          spec_version: '1.0.31',
          version: 1,
          expires: iso(NOW + DAY),
          targets: {},
        },
        repo.keys.targets,
      ),
    );
    await expect((await repo.client()).refresh()).rejects.toMatchObject({
      code: 'ROLE_NOT_IN_SNAPSHOT',
    });
    expect(repo.fetcher.requests).not.toContain(`${BASE}targets.json`);
  });
});
