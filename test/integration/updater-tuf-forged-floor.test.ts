/**
 * A forged version floor ends when the keys that could forge it rotate (docs/SECURITY.md §5.1,
 * "Rollback floors under TUF"; TUF spec §5.3.11), end to end: the companion server, the
 * updater CLI with `--trusted-root`. A thief with copies of the release and freshness keys
 * (the keys a server holds online) serves, from a mirror, targets at the highest version a
 * client can hold (and timestamp, snapshot and targets metadata at huge versions), and one
 * client installs it; every genuine release is then ROLLBACK. The operator rotates both keys
 * (`rotate-keys`, root 2) and publishes a genuine release: the client installs it, because
 * the metadata and the installed set behind the forged floors no longer meet root 2's keys.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#cli/run-cli.js';
import { tuf } from '#protocol';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { createRandom } from '#server/platform/random.js';
import { FRESHNESS_KEY_FILE, heldKey, RELEASE_KEY_FILE } from '#server/updates/keys/trust-keys.js';
import { useLoopbackServer } from '#test/loopback-server.js';
import { rotateIn, rotationServed } from '#test/rotate-kit.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import { tempDirs } from '#test/updater-harness.js';

const TOP = '9007199254740991.9007199254740991.9007199254740991';
const HUGE = 1_000_000;
const dirs = tempDirs();
const mirror = useLoopbackServer();
let server: RunningServer;
let machineKey: string;
let rootFile: string;

const app = (version: string) => [
  { name: 'bin/app.bin', content: new TextEncoder().encode(`app ${version}\n`) },
];
const get = (name: string) =>
  fetch(`${server.url}/api/updates/tuf/${name}`, {
    headers: { authorization: `Bearer ${machineKey}` },
  });

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0 });
  machineKey = (await server.updates.mintMachineKey()).machine_key;
  await server.publish({ registry_version: '1.0.0', artifacts: app('1.0.0') });
  rootFile = join(await dirs.make('tuf-floor-root-'), 'root.json');
  await writeFile(rootFile, new Uint8Array(await (await get('1.root.json')).arrayBuffer()));
});

afterAll(async () => {
  await server.close();
  await dirs.cleanup();
});

async function cli(dir: string, baseUrl = server.url) {
  let out = '';
  const code = await runCli(
    ['update', '--base-url', baseUrl, '--trusted-root', rootFile, '--dir', dir, '--json'],
    { machineKey },
    {
      stdout: (t) => (out += t),
      stderr: () => undefined,
      stderrIsTty: false,
      columns: 80,
      nowMs: () => server.clock.now(),
    },
  );
  return { code, body: JSON.parse(out) as Record<string, unknown> };
}

/**
 * The thief's mirror in front of the server: its own timestamp, snapshot and targets (at
 * version HUGE, registry_version TOP, signed with copies of the server's freshness and
 * release keys) and the forged file; roots and everything else from the server.
 */
async function forgingMirror() {
  const signer = async (file: string) => {
    const key = await heldKey(
      server.dataDir,
      join(server.dataDir, file),
      createRandom(undefined),
      false,
    );
    if (key === undefined) throw new Error(`no ${file}`);
    return { publicHex: key.hex, sign: key.sign };
  };
  const [release, freshness] = [await signer(RELEASE_KEY_FILE), await signer(FRESHNESS_KEY_FILE)];
  const content = Buffer.from('app forged\n');
  const sha256 = createHash('sha256').update(content).digest('hex');
  const expiresMs = server.clock.now() + 86_400_000;
  const common = { version: HUGE, expiresMs };
  const targets = tuf.signMetadata(
    tuf.buildTargets({ ...common, custom: { registry_version: TOP } }, [
      { path: 'bin/app.bin', length: content.length, sha256 },
    ]),
    [release],
  );
  const snapshot = tuf.signMetadata(tuf.buildSnapshot(common, HUGE), [freshness]);
  const ref = {
    version: HUGE,
    length: snapshot.length,
    sha256: createHash('sha256').update(snapshot).digest('hex'),
  };
  const timestamp = tuf.signMetadata(tuf.buildTimestamp(common, ref), [freshness]);
  const forged = new Map<string, Uint8Array>([
    ['/api/updates/tuf/timestamp.json', timestamp],
    [`/api/updates/tuf/${HUGE}.snapshot.json`, snapshot],
    [`/api/updates/tuf/${HUGE}.targets.json`, targets],
    [`/api/updates/tuf/targets/bin/${sha256}.app.bin`, content],
  ]);
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', server.url).pathname;
    const body = forged.get(path);
    if (body !== undefined) {
      res.writeHead(200, { 'content-length': body.length }).end(body);
      return;
    }
    if (!path.startsWith('/api/updates/tuf/')) {
      // No one-request bundle: the client fetches file by file, the forged files included.
      res.writeHead(404).end();
      return;
    }
    void get(path.slice('/api/updates/tuf/'.length)).then(async (up) => {
      const bytes = Buffer.from(await up.arrayBuffer());
      res.writeHead(up.status, { 'content-length': bytes.length }).end(bytes);
    });
  };
}

/** Retries `publish` while the running server picks a rotation up from its keys directory. */
async function publishWhenReady(version: string): Promise<void> {
  const until = Date.now() + 5000;
  for (;;) {
    try {
      await server.publish({ registry_version: version, artifacts: app(version) });
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('failure 3 end to end: a forged version floor under TUF', () => {
  it('holds until the operator rotates the stolen keys, then the genuine release installs', async () => {
    const dir = await dirs.make('tuf-floor-');
    expect((await cli(dir)).code).toBe(0);

    // The thief's mirror: the forged release, installed by one check.
    const forged = await cli(dir, await mirror.serve(await forgingMirror()));
    expect(forged.code, JSON.stringify(forged.body)).toBe(0);
    expect(forged.body['version']).toBe(TOP);
    await mirror.close();

    // Every genuine release under the same keys is now below the floor.
    await server.publish({ registry_version: '1.1.0', artifacts: app('1.1.0') });
    const before = await snapshotTree(join(dir, 'current'));
    const rootBefore = await readFile(join(dir, '.updater', 'tuf', 'root.json'));
    const refused = await cli(dir);
    expect(refused.code).toBe(1);
    expect(refused.body['code']).toBe('ROLLBACK');
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual(filesOf(before));
    expect(await readFile(join(dir, '.updater', 'tuf', 'root.json'))).toEqual(rootBefore);

    // The operator rotates the release and freshness keys (root 2) and publishes under them.
    await rotateIn(server.dataDir, { newReleaseKey: true, newFreshnessKey: true }, () =>
      server.clock.now(),
    );
    await rotationServed(get);
    await publishWhenReady('1.2.0');
    const genuine = await cli(dir);
    expect(genuine.code, JSON.stringify(genuine.body)).toBe(0);
    expect(genuine.body['version']).toBe('1.2.0');
    expect(await readFile(join(dir, 'current', 'bin', 'app.bin'), 'utf8')).toBe('app 1.2.0\n');
    const root = JSON.parse(await readFile(join(dir, '.updater', 'tuf', 'root.json'), 'utf8')) as {
      signed: { version: number };
    };
    expect(root.signed.version).toBe(2);
  });
});
