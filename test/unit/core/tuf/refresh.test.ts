import { describe, expect, it } from 'vitest';
import { SimRepo } from './sim-repo.js';
import { BASE } from './tuf-kit.js';

describe('TufUpdater.refresh (TUF spec §5.3..§5.6)', () => {
  it('trusts and stores root, timestamp, snapshot and targets from a fresh repository', async () => {
    const repo = new SimRepo();
    const client = await repo.client();
    await client.refresh();
    expect(repo.store.version('timestamp')).toBe(1);
    expect(repo.store.version('snapshot')).toBe(1);
    expect(repo.store.version('targets')).toBe(1);
    expect(repo.fetcher.requests).toEqual([
      `${BASE}2.root.json`,
      `${BASE}timestamp.json`,
      `${BASE}snapshot.json`,
      `${BASE}targets.json`,
    ]);
  });

  it('stores the bytes exactly as served', async () => {
    const repo = new SimRepo();
    const served = repo.published.get('timestamp.json');
    await (await repo.client()).refresh();
    expect(repo.store.files.get('timestamp')).toEqual(served);
  });

  it('uses VERSION.ROLE.json names under consistent snapshots (TUF spec §5.5.1, §5.6.1)', async () => {
    const repo = new SimRepo();
    repo.consistent = true;
    repo.rotateRoot(() => undefined);
    repo.bump('targets');
    await (await repo.client()).refresh();
    expect(repo.fetcher.requests).toContain(`${BASE}2.snapshot.json`);
    expect(repo.fetcher.requests).toContain(`${BASE}2.targets.json`);
  });

  it('keeps the stored snapshot when timestamp still names it, fetching nothing more', async () => {
    const repo = new SimRepo();
    await (await repo.client()).refresh();
    repo.fetcher.requests.length = 0;
    await (await repo.client()).refresh();
    expect(repo.fetcher.requests).toEqual([`${BASE}2.root.json`, `${BASE}timestamp.json`]);
  });

  it('refuses a second refresh on the same updater (WRONG_ORDER)', async () => {
    const repo = new SimRepo();
    const client = await repo.client();
    await client.refresh();
    await expect(client.refresh()).rejects.toMatchObject({ code: 'WRONG_ORDER' });
  });

  it('fails every lookup after a failed refresh with the same refusal', async () => {
    const repo = new SimRepo();
    repo.fetcher.files.delete(`${BASE}timestamp.json`);
    const client = await repo.client();
    await expect(client.refresh()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.getTargetInfo('x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses to open without a stored root (NO_TRUSTED_ROOT)', async () => {
    const repo = new SimRepo();
    const { TufUpdater } = await import('#core/tuf/index.js');
    await expect(
      TufUpdater.open({
        metadataBaseUrl: BASE,
        fetcher: repo.fetcher,
        store: repo.store,
        clock: { nowMs: () => 0 },
      }),
    ).rejects.toMatchObject({ code: 'NO_TRUSTED_ROOT' });
  });
});
