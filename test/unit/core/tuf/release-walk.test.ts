import { describe, expect, it } from 'vitest';
import { succinctRoleFor } from '#core/tuf/index.js';
import { SimRepo } from './sim-repo.js';
import { DAY, NOW, iso, newKey } from './tuf-kit.js';

/** path -> length of the release's files, and the roles walked, of a fresh client. */
async function releaseOf(repo: SimRepo, config = {}) {
  const release = await (await repo.client(NOW, config)).releaseTargets();
  return {
    files: Object.fromEntries(release.files.map((f) => [f.path, f.length])),
    roles: release.roles.map((r) => r.name),
  };
}

describe('the targets of a release when roles delegate', () => {
  it('is the top-level list when nothing delegates', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'bin/app', 'app');
    repo.bump('targets');
    expect(await releaseOf(repo)).toEqual({ files: { 'bin/app': 3 }, roles: ['targets'] });
  });

  it("gathers a delegated role's targets, walking every role in pre-order", async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'bin/app', 'app');
    repo.delegate('targets', { paths: ['plugins/*'] }, { name: 'A' });
    repo.delegate('targets', { paths: ['docs/*'] }, { name: 'B' });
    repo.delegate('A', { paths: ['plugins/*'] }, { name: 'C' });
    repo.addTarget('A', 'plugins/a', 'aa');
    repo.addTarget('C', 'plugins/c', 'ccc');
    repo.addTarget('B', 'docs/b', 'bbbb');
    repo.bump('targets');
    expect(await releaseOf(repo)).toEqual({
      files: { 'bin/app': 3, 'plugins/a': 2, 'plugins/c': 3, 'docs/b': 4 },
      roles: ['targets', 'A', 'C', 'B'],
    });
  });

  it('leaves out a path a role lists outside the patterns its delegator gave it', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['plugins/*'] }, { name: 'plugins' });
    repo.addTarget('plugins', 'plugins/ok', 'ok');
    repo.addTarget('plugins', 'bin/app', 'hijacked');
    repo.addTarget('plugins', 'plugins/deep/x', 'no: * stops at a slash');
    repo.bump('targets');
    expect((await releaseOf(repo)).files).toEqual({ 'plugins/ok': 2 });
  });

  it('takes a path from the first role in search order that lists it', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'first' });
    repo.delegate('targets', { paths: ['*'] }, { name: 'second' });
    repo.addTarget('second', 'f', 'second!');
    repo.addTarget('first', 'f', 'one');
    repo.bump('targets');
    expect((await releaseOf(repo)).files).toEqual({ f: 3 });
  });

  it('a top-level entry wins over a delegated one', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'f', 'top');
    repo.delegate('targets', { paths: ['*'] }, { name: 'A' });
    repo.addTarget('A', 'f', 'delegated');
    repo.bump('targets');
    expect((await releaseOf(repo)).files).toEqual({ f: 3 });
  });

  it('a terminating delegation hides the roles after it for the paths it matches', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['x/*'], terminating: true }, { name: 'A' });
    repo.delegate('targets', { paths: ['*', 'x/*'] }, { name: 'B' });
    repo.addTarget('A', 'x/a', 'a');
    repo.addTarget('B', 'x/b', 'not searched for x/*');
    repo.addTarget('B', 'y', 'yy');
    repo.bump('targets');
    expect(await releaseOf(repo)).toEqual({
      files: { 'x/a': 1, y: 2 },
      roles: ['targets', 'A', 'B'],
    });
  });

  it('follows succinct hash bins: a path counts only in its own bin', async () => {
    const repo = new SimRepo();
    const key = newKey();
    const succinct = { keyids: [key.keyid], threshold: 1, bit_length: 2, name_prefix: 'bin' };
    repo.roles.get('targets')!.delegations = {
      keys: { [key.keyid]: key.json },
      succinct_roles: succinct,
    };
    const binOf = (path: string) =>
      succinctRoleFor({ ...succinct, bitLength: 2, namePrefix: 'bin' }, path);
    for (const bin of ['bin-0', 'bin-1', 'bin-2', 'bin-3']) {
      repo.roles.set(bin, { version: 1, expires: iso(NOW + DAY), signers: [key], targets: {} });
    }
    repo.addTarget(binOf('a.txt'), 'a.txt', 'a');
    const wrong = ['bin-0', 'bin-1', 'bin-2', 'bin-3'].find((b) => b !== binOf('b.txt'))!;
    repo.addTarget(wrong, 'b.txt', 'in the wrong bin');
    repo.bump('targets');
    const release = await releaseOf(repo);
    expect(release.files).toEqual({ 'a.txt': 1 });
    expect(release.roles).toEqual(['targets', 'bin-0', 'bin-1', 'bin-2', 'bin-3']);
  });

  it('refuses a delegated role with a bad signature (THRESHOLD_NOT_MET), even one no path needs', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'bin/app', 'app');
    repo.delegate('targets', { paths: ['unused/*'] }, { name: 'A' });
    repo.roles.get('A')!.signers = [newKey()];
    repo.bump('targets');
    await expect((await repo.client()).releaseTargets()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it("checks a role named by two delegators against each one's keys", async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['a/*'] }, { name: 'pa' });
    repo.delegate('targets', { paths: ['b/*'] }, { name: 'pb' });
    const keyA = repo.delegate('pa', { paths: ['a/*'] }, { name: 'shared' });
    const other = newKey();
    repo.roles.get('pb')!.delegations = {
      keys: { [other.keyid]: other.json },
      roles: [
        { name: 'shared', keyids: [other.keyid], threshold: 1, terminating: false, paths: ['b/*'] },
      ],
    };
    repo.roles.get('shared')!.signers = [keyA];
    repo.addTarget('shared', 'a/f', 'f');
    repo.bump('targets');
    await expect((await repo.client()).releaseTargets()).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it('refuses to walk more than maxReleaseRoles roles (TOO_MANY_DELEGATIONS)', async () => {
    const repo = new SimRepo();
    for (const name of ['A', 'B', 'C']) repo.delegate('targets', { paths: ['*'] }, { name });
    repo.bump('targets');
    await expect(releaseOf(repo, { maxReleaseRoles: 3 })).rejects.toMatchObject({
      code: 'TOO_MANY_DELEGATIONS',
    });
    expect((await releaseOf(repo, { maxReleaseRoles: 4 })).roles).toHaveLength(4);
  });

  it('refuses hash bins too many to walk before naming them', async () => {
    const repo = new SimRepo();
    const key = newKey();
    repo.roles.get('targets')!.delegations = {
      keys: { [key.keyid]: key.json },
      succinct_roles: { keyids: [key.keyid], threshold: 1, bit_length: 32, name_prefix: 'bin' },
    };
    repo.bump('targets');
    await expect(releaseOf(repo)).rejects.toMatchObject({ code: 'TOO_MANY_DELEGATIONS' });
  });

  it('refuses a path whose search would pass maxDelegations roles', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'A' });
    repo.delegate('A', { paths: ['*'] }, { name: 'B' });
    repo.addTarget('B', 'deep', 'd');
    repo.bump('targets');
    expect((await releaseOf(repo, { maxDelegations: 3 })).files).toEqual({ deep: 1 });
    await expect(releaseOf(repo, { maxDelegations: 2 })).rejects.toMatchObject({
      code: 'TOO_MANY_DELEGATIONS',
    });
  });

  it('lists the same release when the roles come from the store', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['p/*'] }, { name: 'A' });
    repo.addTarget('A', 'p/x', 'x');
    repo.bump('targets');
    const first = await releaseOf(repo);
    const requests = repo.fetcher.requests.length;
    const second = await releaseOf(repo);
    expect(second).toEqual(first);
    // The root probe and timestamp only (the snapshot named is stored): no role again.
    expect(repo.fetcher.requests.slice(requests).map((u) => u.split('/').pop())).toEqual([
      '2.root.json',
      'timestamp.json',
    ]);
  });
});
