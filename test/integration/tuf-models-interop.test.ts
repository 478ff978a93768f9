/**
 * Our TUF client (src/core/tuf over src/node/tuf) reads a repository that another
 * implementation wrote: every file below is made with @tufjs/models and keyed as
 * securesystemslib does, then served by a plain static server. Consistent snapshots, a
 * delegated role with a path pattern, and a root rotation with a new timestamp key
 * (docs/PROTOCOL.md §TUF repository, Interop checked); then the updater CLI installs a release
 * whose artifacts only a delegated role lists (§TUF repository, "Delegated targets in a
 * release").
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { canonicalize } from '@tufjs/canonical-json';
import {
  Key,
  Metadata,
  MetadataKind,
  MetaFile,
  Root,
  Signature,
  Snapshot,
  TargetFile,
  Targets,
  Timestamp,
} from '@tufjs/models';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#cli/run-cli.js';
import { TufUpdater } from '#core/tuf/index.js';
import { FileMetadataStore, HttpBytesFetcher } from '#node/tuf/index.js';
import { serveStaticFiles, type StaticFiles } from '#test/static-files.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const SPEC = '1.0.31';
const LONG = '2031-01-01T00:00:00Z';
const SHORT = '2030-01-02T00:00:00Z';

interface ModelKey {
  readonly key: Key;
  readonly privateKey: KeyObject;
}

/** An ed25519 key whose id is the SHA-256 of its canonical JSON (TUF spec §4.2). */
function modelKey(): ModelKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const hex = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex');
  const json = { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: hex } };
  const keyID = createHash('sha256').update(canonicalize(json)).digest('hex');
  return {
    key: new Key({ keyID, keyType: 'ed25519', scheme: 'ed25519', keyVal: json.keyval }),
    privateKey,
  };
}

function signAll<T extends Root | Timestamp | Snapshot | Targets>(
  md: Metadata<T>,
  keys: readonly ModelKey[],
): Buffer {
  for (const k of keys) {
    md.sign(
      (data) =>
        new Signature({ keyID: k.key.keyID, sig: sign(null, data, k.privateKey).toString('hex') }),
    );
  }
  return Buffer.from(JSON.stringify(md.toJSON()));
}

const metaOf = (bytes: Buffer, version: number) =>
  new MetaFile({
    version,
    length: bytes.length,
    hashes: { sha256: createHash('sha256').update(bytes).digest('hex') },
  });

const keys = {
  root1: modelKey(),
  root2: modelKey(),
  timestamp1: modelKey(),
  timestamp2: modelKey(),
  snapshot: modelKey(),
  targets: modelKey(),
  plugins: modelKey(),
};

let dir: string;
let repo: StaticFiles;
let rootOne: Buffer;

async function put(name: string, bytes: Buffer | string, base = dir): Promise<void> {
  await mkdir(dirname(join(base, name)), { recursive: true });
  await writeFile(join(base, name), bytes);
}

function rootMd(version: number, rootKey: ModelKey, timestampKey: ModelKey): Metadata<Root> {
  const md = new Metadata(
    new Root({ version, specVersion: SPEC, expires: LONG, consistentSnapshot: true }),
  );
  md.signed.addKey(rootKey.key, 'root');
  md.signed.addKey(timestampKey.key, 'timestamp');
  md.signed.addKey(keys.snapshot.key, 'snapshot');
  md.signed.addKey(keys.targets.key, 'targets');
  return md;
}

/** A target file under its consistent-snapshot name; its TargetFile for the metadata. */
async function target(path: string, content: string, base = dir): Promise<TargetFile> {
  const bytes = Buffer.from(content);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const slash = path.lastIndexOf('/');
  await put(`targets/${path.slice(0, slash + 1)}${sha256}.${path.slice(slash + 1)}`, bytes, base);
  return new TargetFile({ path, length: bytes.length, hashes: { sha256 } });
}

/** Release `version`: targets (delegating plugins/*), plugins, snapshot, timestamp. */
async function release(version: number, plugin: string, timestampKey: ModelKey): Promise<void> {
  const common = { version, specVersion: SPEC, expires: LONG };
  const plugins = new Metadata(new Targets(common));
  plugins.signed.addTarget(await target('plugins/a.txt', plugin));
  const pluginsBytes = signAll(plugins, [keys.plugins]);
  // The package exports no Delegations class: delegations come in through fromJSON.
  const top = Metadata.fromJSON(MetadataKind.Targets, {
    signatures: [],
    signed: {
      _type: 'targets',
      spec_version: SPEC,
      version,
      expires: LONG,
      targets: {},
      delegations: {
        keys: { [keys.plugins.key.keyID]: keys.plugins.key.toJSON() },
        roles: [
          {
            name: 'plugins',
            keyids: [keys.plugins.key.keyID],
            threshold: 1,
            terminating: true,
            paths: ['plugins/*'],
          },
        ],
      },
    },
  });
  top.signed.addTarget(await target('app/base.txt', 'the base, always'));
  const targetsBytes = signAll(top, [keys.targets]);
  const snapshot = new Metadata(
    new Snapshot({
      ...common,
      meta: {
        'targets.json': metaOf(targetsBytes, version),
        'plugins.json': metaOf(pluginsBytes, version),
      },
    }),
  );
  const snapshotBytes = signAll(snapshot, [keys.snapshot]);
  const timestamp = new Metadata(
    new Timestamp({ ...common, expires: SHORT, snapshotMeta: metaOf(snapshotBytes, version) }),
  );
  await put(`${version}.plugins.json`, pluginsBytes);
  await put(`${version}.targets.json`, targetsBytes);
  await put(`${version}.snapshot.json`, snapshotBytes);
  await put('timestamp.json', signAll(timestamp, [timestampKey]));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tufjs-models-repo-'));
  rootOne = signAll(rootMd(1, keys.root1, keys.timestamp1), [keys.root1]);
  await put('1.root.json', rootOne);
  await release(1, 'plugin a, first', keys.timestamp1);
  repo = await serveStaticFiles(dir);
});

afterAll(async () => {
  await repo.close();
  await rm(dir, { recursive: true, force: true });
});

async function run(store: FileMetadataStore) {
  const updater = await TufUpdater.open({
    metadataBaseUrl: repo.baseUrl,
    fetcher: new HttpBytesFetcher({ timeoutMs: 10_000 }),
    store,
    clock: { nowMs: () => NOW },
  });
  const download = async (path: string) =>
    Buffer.from(
      await updater.downloadTarget(
        await updater.requireTargetInfo(path),
        `${repo.baseUrl}/targets`,
      ),
    ).toString();
  return { updater, download };
}

describe('our client reads a repository written with @tufjs/models', () => {
  it('refreshes, follows the delegation and downloads by consistent names, then a rotation', async () => {
    const metadata = await mkdtemp(join(tmpdir(), 'tufjs-models-client-'));
    try {
      await writeFile(join(metadata, 'root.json'), rootOne);
      const store = new FileMetadataStore(metadata);
      const first = await run(store);
      expect(await first.download('app/base.txt')).toBe('the base, always');
      expect(await first.download('plugins/a.txt')).toBe('plugin a, first');
      expect(repo.requested).toContain('/1.plugins.json');
      expect(repo.requested.some((p) => /^\/targets\/plugins\/[0-9a-f]{64}\.a\.txt$/.test(p))).toBe(
        true,
      );

      // Root 2: a new root key and a new timestamp key, signed by root 1's key and its own.
      await put(
        '2.root.json',
        signAll(rootMd(2, keys.root2, keys.timestamp2), [keys.root1, keys.root2]),
      );
      await release(2, 'plugin a, second', keys.timestamp2);
      const second = await run(store);
      expect(await second.download('plugins/a.txt')).toBe('plugin a, second');
      expect(second.updater.trusted.root.signed.version).toBe(2);
      expect(second.updater.trusted.targets('plugins')?.signed.version).toBe(2);
    } finally {
      await rm(metadata, { recursive: true, force: true });
    }
  });
});

/** The companion server's paths (docs/PROTOCOL.md §TUF repository), in a static tree. */
const CLI_REPO = 'api/updates/tuf';

interface CliRelease {
  readonly version: number;
  readonly registryVersion: string;
  readonly app: string;
  /** Who signs the delegated role `apps` (its delegated key unless a test says otherwise). */
  readonly appsSigner?: ModelKey;
}

/**
 * A release for the updater CLI: top-level targets carry `custom.registry_version` and list
 * nothing; they delegate `bin/*` to `apps` (terminating), which lists the app and, outside its
 * patterns, a file no search may ever take from it.
 */
async function cliRelease(base: string, r: CliRelease): Promise<void> {
  const put2 = (name: string, bytes: Buffer) => put(`${CLI_REPO}/${name}`, bytes, base);
  const common = { version: r.version, specVersion: SPEC, expires: LONG };
  const apps = new Metadata(new Targets(common));
  apps.signed.addTarget(await target('bin/app.bin', r.app, join(base, CLI_REPO)));
  apps.signed.addTarget(await target('etc/evil.txt', 'not its path', join(base, CLI_REPO)));
  const appsBytes = signAll(apps, [r.appsSigner ?? keys.plugins]);
  const top = Metadata.fromJSON(MetadataKind.Targets, {
    signatures: [],
    signed: {
      _type: 'targets',
      spec_version: SPEC,
      version: r.version,
      expires: LONG,
      targets: {},
      custom: { registry_version: r.registryVersion },
      delegations: {
        keys: { [keys.plugins.key.keyID]: keys.plugins.key.toJSON() },
        roles: [
          {
            name: 'apps',
            keyids: [keys.plugins.key.keyID],
            threshold: 1,
            terminating: true,
            paths: ['bin/*'],
          },
        ],
      },
    },
  });
  const targetsBytes = signAll(top, [keys.targets]);
  const snapshot = new Metadata(
    new Snapshot({
      ...common,
      meta: {
        'targets.json': metaOf(targetsBytes, r.version),
        'apps.json': metaOf(appsBytes, r.version),
      },
    }),
  );
  const snapshotBytes = signAll(snapshot, [keys.snapshot]);
  const timestamp = new Metadata(
    new Timestamp({ ...common, expires: SHORT, snapshotMeta: metaOf(snapshotBytes, r.version) }),
  );
  await put2(`${r.version}.apps.json`, appsBytes);
  await put2(`${r.version}.targets.json`, targetsBytes);
  await put2(`${r.version}.snapshot.json`, snapshotBytes);
  await put2('timestamp.json', signAll(timestamp, [keys.timestamp1]));
}

describe('the updater CLI installs from a @tufjs/models repository with delegated targets', () => {
  it('installs what the delegated role lists, refuses its bad signature, then updates', async () => {
    const base = await mkdtemp(join(tmpdir(), 'tufjs-models-cli-repo-'));
    const work = await mkdtemp(join(tmpdir(), 'tufjs-models-cli-'));
    const served = await serveStaticFiles(base);
    try {
      const root = signAll(rootMd(1, keys.root1, keys.timestamp1), [keys.root1]);
      await put(`${CLI_REPO}/1.root.json`, root, base);
      await cliRelease(base, { version: 1, registryVersion: '1.0.0', app: 'app 1.0.0\n' });
      const rootFile = join(work, 'root.json');
      await writeFile(rootFile, root);
      const dir = join(work, 'state');
      const cli = async (command: string) => {
        let out = '';
        const code = await runCli(
          [
            command,
            '--base-url',
            served.baseUrl,
            '--trusted-root',
            rootFile,
            '--dir',
            dir,
            '--json',
          ],
          // A static tree ignores the bearer; the CLI requires one.
          { machineKey: 'unused-by-a-static-tree' },
          {
            stdout: (t) => (out += t),
            stderr: () => undefined,
            stderrIsTty: false,
            columns: 80,
            nowMs: () => NOW,
          },
        );
        return { code, body: JSON.parse(out) as Record<string, unknown> };
      };
      const tufFile = (role: string) => readFile(join(dir, '.updater', 'tuf', `${role}.json`));

      const first = await cli('update');
      expect(first.code, JSON.stringify(first.body)).toBe(0);
      expect(first.body['version']).toBe('1.0.0');
      expect(await readFile(join(dir, 'current', 'bin', 'app.bin'), 'utf8')).toBe('app 1.0.0\n');
      // Listed by `apps`, but outside the `bin/*` its delegator gave it: never installed.
      expect(Object.keys(filesOf(await snapshotTree(join(dir, 'current'))))).toEqual([
        'bin/app.bin',
      ]);
      expect(served.requested).toContain(`/${CLI_REPO}/1.apps.json`);
      const verify = await cli('verify');
      expect(verify.code, JSON.stringify(verify.body)).toBe(0);

      // Release 2: `apps` signed by a key its delegator does not give it.
      await cliRelease(base, {
        version: 2,
        registryVersion: '2.0.0',
        app: 'app 2.0.0, forged\n',
        appsSigner: modelKey(),
      });
      const before = await snapshotTree(join(dir, 'current'));
      const trusted = await Promise.all(['root', 'apps'].map(tufFile));
      const refused = await cli('update');
      expect(refused.code).toBe(1);
      expect(refused.body['code']).toBe('THRESHOLD_NOT_MET');
      expect(await snapshotTree(join(dir, 'current'))).toEqual(before);
      // Root and the refused role are not moved; the genuine timestamp, snapshot and top-level
      // targets 2 verified before it may be kept (TUF spec §5: each is stored once trusted).
      expect(await Promise.all(['root', 'apps'].map(tufFile))).toEqual(trusted);
      const apps = JSON.parse((await tufFile('apps')).toString()) as {
        signed: { version: number };
      };
      expect(apps.signed.version).toBe(1);

      // Release 3, genuine: installed.
      await cliRelease(base, { version: 3, registryVersion: '3.0.0', app: 'app 3.0.0\n' });
      const third = await cli('update');
      expect(third.code, JSON.stringify(third.body)).toBe(0);
      expect(third.body['version']).toBe('3.0.0');
      expect(await readFile(join(dir, 'current', 'bin', 'app.bin'), 'utf8')).toBe('app 3.0.0\n');
      expect((await cli('verify')).code).toBe(0);
    } finally {
      await served.close();
      await rm(base, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    }
  });
});
