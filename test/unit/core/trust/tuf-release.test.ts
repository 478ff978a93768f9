import { describe, expect, it } from 'vitest';
import { verifiedFromTargets } from '#core/trust/index.js';
import { verifyStoredTargets } from '#core/trust/tuf-installed.js';
import {
  isReleaseRecord,
  releaseBytes,
  storedRelease,
  storedTopTargets,
} from '#core/trust/tuf-release.js';
import { DEFAULT_TUF_CONFIG } from '#core/tuf/index.js';
import { parseEnvelope, type Root } from '#protocol/tuf/index.js';
import { SimRepo } from '../tuf/sim-repo.js';
import { NOW, newKey, signed } from '../tuf/tuf-kit.js';

/** A repository whose top-level targets (registry_version 1.0.0) delegate plugins/*. */
function delegatingRepo(): SimRepo {
  const repo = new SimRepo();
  repo.roles.get('targets')!.targets = {};
  repo.addTarget('targets', 'bin/app', 'app');
  repo.delegate('targets', { paths: ['plugins/*'] }, { name: 'plugins' });
  repo.addTarget('plugins', 'plugins/a', 'aa');
  repo.addTarget('plugins', 'bin/evil', 'outside its patterns');
  repo.bump('targets');
  return repo;
}

const rootOf = (repo: SimRepo): Root => parseEnvelope(repo.initialRoot, 'root').signed;

describe('the signed bytes of a set installed under TUF', () => {
  it('are the targets bytes as received when nothing delegates', async () => {
    const repo = new SimRepo();
    repo.addTarget('targets', 'bin/app', 'app');
    repo.bump('targets');
    const release = await (await repo.client()).releaseTargets();
    const bytes = releaseBytes(release);
    expect(bytes).toBe(release.roles[0]?.envelope.raw);
    expect(isReleaseRecord(bytes)).toBe(false);
    expect(storedTopTargets(bytes).signed.targets.has('bin/app')).toBe(true);
  });

  it('are a release record that walks again offline to the same release', async () => {
    const repo = delegatingRepo();
    const release = await (await repo.client()).releaseTargets();
    const bytes = releaseBytes(release);
    expect(isReleaseRecord(bytes)).toBe(true);
    const again = await storedRelease(bytes, rootOf(repo), DEFAULT_TUF_CONFIG);
    expect(again.files.map((f) => f.path).sort()).toEqual(['bin/app', 'plugins/a']);
    expect(again.roles.map((r) => r.name)).toEqual(['targets', 'plugins']);
    expect(storedTopTargets(bytes).raw).toEqual(release.roles[0]?.envelope.raw);
  });

  it('refuse a record whose delegated role another key signed (THRESHOLD_NOT_MET)', async () => {
    const repo = delegatingRepo();
    const release = await (await repo.client()).releaseTargets();
    const forged = signed(
      {
        _type: 'targets',
        spec_version: '1.0.31',
        version: 9,
        expires: '2031-01-01T00:00:00Z',
        targets: {},
      },
      [newKey()],
    );
    const roles = release.roles.map((r) =>
      r.name === 'plugins' ? { ...r, envelope: parseEnvelope(forged, 'targets') } : r,
    );
    const bytes = releaseBytes({ roles, files: release.files });
    await expect(storedRelease(bytes, rootOf(repo), DEFAULT_TUF_CONFIG)).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
  });

  it('refuse a record that lacks a delegated role (STATE_CORRUPT)', async () => {
    const repo = delegatingRepo();
    const release = await (await repo.client()).releaseTargets();
    const roles = [...release.roles.slice(0, 1), { ...release.roles[0]!, name: 'other' }];
    const bytes = releaseBytes({ roles, files: release.files });
    await expect(storedRelease(bytes, rootOf(repo), DEFAULT_TUF_CONFIG)).rejects.toMatchObject({
      code: 'STATE_CORRUPT',
    });
  });

  it('refuse a malformed record (STATE_CORRUPT)', () => {
    const bytes = new TextEncoder().encode('{"tuf_release":1,"roles":[["targets",1]]}');
    expect(() => storedTopTargets(bytes)).toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });

  it('verify re-checks a record and lists its release, not a path outside the patterns', async () => {
    const repo = delegatingRepo();
    repo.roles.get('targets')!.custom = { registry_version: '1.0.0' };
    repo.bump('targets');
    const bytes = releaseBytes(await (await repo.client()).releaseTargets());
    const record = await verifyStoredTargets(bytes, repo.initialRoot, NOW + 400 * 86_400_000);
    expect(record.version).toBe('1.0.0');
    expect(record.artifacts.map((a) => a.name)).toEqual(['bin/app', 'plugins/a']);
  });

  it('name packs only for top-level targets: a delegated role cannot index a table it did not sign', async () => {
    const repo = delegatingRepo();
    const row = { sha256: 'd'.repeat(64), size: 8, url: 'api/updates/artifacts/d' };
    const top = repo.roles.get('targets')!;
    top.custom = { registry_version: '1.0.0', packs: [row] };
    top.targets['bin/app'] = {
      ...(top.targets['bin/app'] as object),
      custom: { pack: 0, pack_offset: 0 },
    };
    const plugins = repo.roles.get('plugins')!;
    plugins.targets['plugins/a'] = {
      ...(plugins.targets['plugins/a'] as object),
      custom: { pack: 0, pack_offset: 3 },
    };
    repo.bump('targets');
    repo.bump('plugins');
    const release = await (await repo.client()).releaseTargets();
    const targets = release.roles[0]!.envelope;
    const verified = verifiedFromTargets({
      targets,
      release,
      urlOf: (t) => `https://r.example/${t.path}`,
      freshUntilMs: NOW + 1000,
      nowMs: NOW,
    });
    const packOf = Object.fromEntries(verified.manifest.artifacts.map((a) => [a.name, a.pack]));
    expect(packOf).toEqual({ 'bin/app': { ...row, offset: 0 }, 'plugins/a': undefined });
  });
});
