import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SimRepo } from './sim-repo.js';
import { BASE, DAY, NOW, iso, newKey } from './tuf-kit.js';

/** The delegated roles fetched, in order. */
function visited(repo: SimRepo): string[] {
  return repo.fetcher.requests
    .map((url) => url.slice(BASE.length).replace(/\.json$/, ''))
    .filter(
      (name) => !['timestamp', 'snapshot', 'targets'].includes(name) && !name.endsWith('.root'),
    );
}

describe('delegation search (TUF spec §5.6.7)', () => {
  it('visits roles in pre-order depth-first order, children in listed order', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'A' });
    repo.delegate('targets', { paths: ['*'] }, { name: 'B' });
    repo.delegate('A', { paths: ['*'] }, { name: 'C' });
    repo.delegate('A', { paths: ['*'] }, { name: 'D' });
    repo.bump('targets');
    const client = await repo.client();
    expect(await client.getTargetInfo('missing')).toBeUndefined();
    expect(visited(repo)).toEqual(['A', 'C', 'D', 'B']);
  });

  it('stops below a terminating delegation', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'A' });
    repo.delegate('targets', { paths: ['*'] }, { name: 'B' });
    repo.delegate('A', { paths: ['*'], terminating: true }, { name: 'C' });
    repo.delegate('A', { paths: ['*'] }, { name: 'D' });
    repo.bump('targets');
    expect(await (await repo.client()).getTargetInfo('missing')).toBeUndefined();
    expect(visited(repo)).toEqual(['A', 'C']);
  });

  it('matches paths with `*` inside one segment only, case-sensitively', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*.md'] }, { name: 'A' });
    repo.addTarget('A', 'README.md', 'a');
    repo.addTarget('A', 'docs/README.md', 'b');
    repo.bump('targets');
    const client = await repo.client();
    expect((await client.getTargetInfo('README.md'))?.length).toBe(1);
    expect(await client.getTargetInfo('docs/README.md')).toBeUndefined();
    expect(await client.getTargetInfo('README.MD')).toBeUndefined();
  });

  it('follows path_hash_prefixes', async () => {
    const repo = new SimRepo();
    const prefix = createHash('sha256').update('file.txt').digest('hex').slice(0, 2);
    repo.delegate('targets', { path_hash_prefixes: [prefix] }, { name: 'bin' });
    repo.addTarget('bin', 'file.txt', 'x');
    repo.bump('targets');
    expect(await (await repo.client()).getTargetInfo('file.txt')).toBeDefined();
  });

  it('follows succinct hash bins (TAP 15)', async () => {
    const repo = new SimRepo();
    const key = newKey();
    const targets = repo.roles.get('targets')!;
    targets.delegations = {
      keys: { [key.keyid]: key.json },
      succinct_roles: { keyids: [key.keyid], threshold: 1, bit_length: 4, name_prefix: 'bin' },
    };
    const bin = `bin-${parseInt(createHash('sha256').update('f').digest('hex').slice(0, 1), 16).toString(16)}`;
    repo.roles.set(bin, { version: 1, expires: iso(NOW + DAY), signers: [key], targets: {} });
    repo.addTarget(bin, 'f', 'content');
    repo.bump('targets');
    expect(await (await repo.client()).getTargetInfo('f')).toBeDefined();
    expect(visited(repo)).toEqual([bin]);
  });

  it('refuses to search more than maxDelegations roles (TOO_MANY_DELEGATIONS)', async () => {
    const repo = new SimRepo();
    for (const name of ['A', 'B', 'C']) repo.delegate('targets', { paths: ['*'] }, { name });
    repo.bump('targets');
    const client = await repo.client(NOW, { maxDelegations: 2 });
    await expect(client.getTargetInfo('missing')).rejects.toMatchObject({
      code: 'TOO_MANY_DELEGATIONS',
    });
  });

  it('refuses a delegated role snapshot does not list (ROLE_NOT_IN_SNAPSHOT)', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'A' });
    repo.bump('targets');
    repo.roles.delete('A');
    repo.bump();
    await expect((await repo.client()).getTargetInfo('x')).rejects.toMatchObject({
      code: 'ROLE_NOT_IN_SNAPSHOT',
    });
  });

  it('refuses a delegated role signed by keys its delegator does not give it (THRESHOLD_NOT_MET)', async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['*'] }, { name: 'A' });
    repo.roles.get('A')!.signers = [newKey()];
    repo.bump('targets');
    await expect((await repo.client()).getTargetInfo('x')).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it("checks a role reached by a second delegator against that delegator's keys", async () => {
    const repo = new SimRepo();
    repo.delegate('targets', { paths: ['team-a/*'] }, { name: 'parent-a' });
    repo.delegate('targets', { paths: ['team-b/*'] }, { name: 'parent-b' });
    const keyA = repo.delegate('parent-a', { paths: ['team-a/*'] }, { name: 'release' });
    // parent-b delegates "release" to another key, which never signs it.
    const parentB = repo.roles.get('parent-b')!;
    const keyB = newKey();
    parentB.delegations = {
      keys: { [keyB.keyid]: keyB.json },
      roles: [
        {
          name: 'release',
          keyids: [keyB.keyid],
          threshold: 1,
          terminating: false,
          paths: ['team-b/*'],
        },
      ],
    };
    repo.roles.get('release')!.signers = [keyA];
    repo.addTarget('release', 'team-a/file', 'A');
    repo.addTarget('release', 'team-b/file', 'B');
    repo.bump('targets');
    const client = await repo.client();
    expect(await client.getTargetInfo('team-a/file')).toBeDefined();
    await expect(client.getTargetInfo('team-b/file')).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
    // A later run finds the stored copy and checks it against parent-b too.
    const next = await repo.client(NOW + DAY / 2);
    await expect(next.getTargetInfo('team-b/file')).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });
});
