/**
 * TUF as the trust layer of real CLI runs (docs/PROTOCOL.md §TUF repository, "Client"): the
 * in-process companion server, the CLI with `--trusted-root` and no pinned key. It installs,
 * a second run is a no-op, a root rotation 1 -> 2 is followed, and an attacker-signed targets
 * (a hostile mirror in front of the server) is refused with DIR/current and the trusted
 * metadata unchanged.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '#cli/run-cli.js';
import { tuf } from '#protocol';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { createRandom } from '#server/platform/random.js';
import { heldKey } from '#server/updates/keys/trust-keys.js';
import { useLoopbackServer } from '#test/loopback-server.js';
import { rotateIn, rotationServed } from '#test/rotate-kit.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import { newKey } from '#test/trust-kit.js';
import { tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
const mirror = useLoopbackServer();
let server: RunningServer;
let machineKey: string;
let rootFile: string;

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0 });
  machineKey = (await server.updates.mintMachineKey()).machine_key;
  await server.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'bin/app.bin', content: new TextEncoder().encode('app 1.0.0\n') }],
  });
  const res = await fetch(`${server.url}/api/updates/tuf/1.root.json`, {
    headers: { authorization: `Bearer ${machineKey}` },
  });
  rootFile = join(await dirs.make('tuf-root-'), 'root.json');
  await writeFile(rootFile, new Uint8Array(await res.arrayBuffer()));
});

afterAll(async () => {
  await server.close();
  await dirs.cleanup();
});

interface Run {
  readonly code: number;
  readonly body: Record<string, unknown>;
}

async function cli(command: string, dir: string, baseUrl = server.url, extra: string[] = []) {
  let out = '';
  const code = await runCli(
    [command, '--base-url', baseUrl, '--trusted-root', rootFile, '--dir', dir, '--json', ...extra],
    { machineKey },
    {
      stdout: (t) => (out += t),
      stderr: () => undefined,
      stderrIsTty: false,
      columns: 80,
      nowMs: () => server.clock.now(),
    },
  );
  return { code, body: JSON.parse(out) as Record<string, unknown> } satisfies Run;
}

const tufFile = (dir: string, role: string) => join(dir, '.updater', 'tuf', `${role}.json`);

describe('updater CLI over TUF', () => {
  it('installs from the trusted root, then a second run is a no-op', async () => {
    const dir = await dirs.make('tuf-cli-');
    const first = await cli('update', dir);
    expect(first.code, JSON.stringify(first.body)).toBe(0);
    expect(first.body['version']).toBe('1.0.0');
    expect(await readFile(join(dir, 'current', 'bin', 'app.bin'), 'utf8')).toBe('app 1.0.0\n');
    for (const role of ['root', 'timestamp', 'snapshot', 'targets']) {
      await expect(readFile(tufFile(dir, role))).resolves.toBeDefined();
    }
    // The no-op goes through a counting mirror that passes the one-request bundle on.
    const seen: string[] = [];
    const counting = await mirror.serve(passThrough(server.url, (_u, body) => body, { seen }));
    const second = await cli('update', dir, counting);
    expect(second.code).toBe(0);
    expect(second.body['outcome']).toBe('up-to-date');
    expect(second.body['bytes_downloaded']).toBe(0);
    expect(seen).toEqual(['/api/updates/manifest?format=tuf']);
    const verify = await cli('verify', dir);
    expect(verify.code, JSON.stringify(verify.body)).toBe(0);
  });

  it('refuses a --trusted-root that is not a self-signed root (exit 2)', async () => {
    const dir = await dirs.make('tuf-cli-bad-');
    const bad = join(await dirs.make('tuf-cli-bad-root-'), 'root.json');
    const root = JSON.parse(await readFile(rootFile, 'utf8')) as { signatures: unknown[] };
    await writeFile(bad, JSON.stringify({ ...root, signatures: [] }));
    let out = '';
    const code = await runCli(
      ['status', '--trusted-root', bad, '--dir', dir, '--json'],
      {},
      {
        stdout: (t) => (out += t),
        stderr: () => undefined,
        stderrIsTty: false,
        columns: 80,
        nowMs: Date.now,
      },
    );
    expect(code).toBe(2);
    expect((JSON.parse(out) as { code: string }).code).toBe('TRUSTED_ROOT_INVALID');
  });

  it('refuses targets signed by an attacker: DIR/current and the trusted metadata unchanged', async () => {
    const dir = await dirs.make('tuf-cli-attack-');
    expect((await cli('update', dir)).code).toBe(0);
    await server.publish({
      registry_version: '1.1.0',
      artifacts: [{ name: 'bin/app.bin', content: new TextEncoder().encode('app 1.1.0\n') }],
    });
    const before = await snapshotTree(join(dir, 'current'));
    const metadata = await Promise.all(
      ['root', 'timestamp', 'snapshot', 'targets'].map((r) => readFile(tufFile(dir, r))),
    );
    const hostile = await mirror.serve(forgingMirror(server.url));
    const refused = await cli('update', dir, hostile);
    expect(refused.code).toBe(1);
    expect(refused.body['code']).toBe('THRESHOLD_NOT_MET');
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual(filesOf(before));
    // The new timestamp and snapshot are genuine and may be kept; root and targets are not moved.
    expect(await readFile(tufFile(dir, 'root'))).toEqual(metadata[0]);
    expect(await readFile(tufFile(dir, 'targets'))).toEqual(metadata[3]);
    const genuine = await cli('update', dir);
    expect(genuine.code, JSON.stringify(genuine.body)).toBe(0);
    expect(genuine.body['version']).toBe('1.1.0');
  });

  it('--require-nonce: refuses a timestamp without the nonce, accepts one signed with it', async () => {
    const dir = await dirs.make('tuf-cli-nonce-');
    // A mirror that replays what it is given without the nonce: the answer is not for this run.
    const replaying = await mirror.serve(
      passThrough(server.url, (_url, body) => body, { dropNonce: true }),
    );
    const refused = await cli('update', dir, replaying, ['--require-nonce']);
    expect(refused.body['code']).toBe('NONCE_MISMATCH');
    await expect(readFile(join(dir, 'current', 'bin', 'app.bin'))).rejects.toThrow();
    // The companion server signs the timestamp for the request's nonce (§TUF repository).
    const accepted = await cli('update', dir, server.url, ['--require-nonce']);
    expect(accepted.code, JSON.stringify(accepted.body)).toBe(0);
  });

  it('follows a root rotation 1 -> 2 from the stored root 1; a later run names the retired key', async () => {
    const dir = await dirs.make('tuf-cli-rotation-');
    expect((await cli('update', dir)).code).toBe(0);
    const offline = await dirs.make('tuf-cli-new-root-');
    // A thief's copy of root key 1, which the rotation retires.
    const stolenFile = join(offline, 'stolen-root-1.json');
    await copyFile(join(server.dataDir, 'node-key.json'), stolenFile);
    await rotateIn(server.dataDir, {
      newRootKeyFiles: [join(offline, 'root-2.json')],
      newFreshnessKey: true,
    });
    await rotationServed(get);
    await server.publish({
      registry_version: '1.2.0',
      artifacts: [{ name: 'bin/app.bin', content: new TextEncoder().encode('app 1.2.0\n') }],
    });
    const after = await cli('update', dir);
    expect(after.code, JSON.stringify(after.body)).toBe(0);
    expect(after.body['version']).toBe('1.2.0');
    const stored = JSON.parse(await readFile(tufFile(dir, 'root'), 'utf8')) as {
      signed: { version: number };
    };
    expect(stored.signed.version).toBe(2);

    // A later run, from root 2: root 3 signed only by the retired root key is KEY_RETIRED
    // (the keys root 2 dropped are kept beside root.json), the trusted metadata unchanged.
    const stolen = await heldKey(offline, stolenFile, createRandom(undefined), false);
    const rootThree = tuf.signMetadata(
      {
        ...(JSON.parse(await readFile(tufFile(dir, 'root'), 'utf8')) as RootDoc).signed,
        version: 3,
      },
      [{ publicHex: stolen!.hex, sign: stolen!.sign }],
    );
    const rootBefore = await readFile(tufFile(dir, 'root'));
    const before = await snapshotTree(join(dir, 'current'));
    const forging = await mirror.serve((req, res) => {
      if (req.url === '/api/updates/tuf/3.root.json') {
        res.writeHead(200).end(rootThree);
        return;
      }
      passThrough(server.url, (_u, body) => body)(req, res);
    });
    const refused = await cli('update', dir, forging);
    expect(refused.code).toBe(1);
    expect(refused.body['code']).toBe('KEY_RETIRED');
    expect(await readFile(tufFile(dir, 'root'))).toEqual(rootBefore);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual(filesOf(before));
  });
});

interface RootDoc {
  readonly signed: tuf.JsonObject;
}

function get(name: string): Promise<Response> {
  return fetch(`${server.url}/api/updates/tuf/${name}`, {
    headers: { authorization: `Bearer ${machineKey}` },
  });
}

interface MirrorOptions {
  /** Leaves the request's nonce out upstream. */
  readonly dropNonce?: boolean;
  /** Passes the one-request bundle on and records every request (path and query) here. */
  readonly seen?: string[];
}

/**
 * A mirror of the repository in front of `upstream`: every 200 body through `edit`, the bearer
 * passed on. Unless it records `seen`, it has no one-request bundle (404, so the client
 * fetches file by file, and `edit` sees each file).
 */
function passThrough(
  upstream: string,
  edit: (url: URL, body: Buffer) => Buffer,
  options: MirrorOptions = {},
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', upstream);
    options.seen?.push(url.pathname + url.search);
    if (options.seen === undefined && url.pathname === '/api/updates/manifest') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"ok":false,"code":"NOT_FOUND"}');
      return;
    }
    if (options.dropNonce === true) url.searchParams.delete('nonce');
    const headers = { authorization: req.headers.authorization ?? '' };
    const upstreamReq = request(url, { headers });
    upstreamReq.on('response', (up) => {
      const parts: Buffer[] = [];
      up.on('data', (b: Buffer) => parts.push(b));
      up.on('end', () => {
        const body = Buffer.concat(parts);
        res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' });
        res.end(up.statusCode === 200 ? edit(url, body) : body);
      });
    });
    upstreamReq.on('error', () => res.destroy());
    upstreamReq.end();
  };
}

/**
 * A mirror in front of `upstream` that passes everything through but re-signs each
 * `N.targets.json` with its own key, pointing every target at other bytes.
 */
function forgingMirror(upstream: string) {
  const attacker = newKey();
  const signer: tuf.TufSigner = { publicHex: attacker.hex, sign: attacker.sign };
  return passThrough(upstream, (url, body) => {
    if (!/\/\d+\.targets\.json$/.test(url.pathname)) return body;
    const doc = JSON.parse(body.toString('utf8')) as {
      signed: { targets: Record<string, { hashes: { sha256: string } }> };
      signatures: { keyid: string; sig: string }[];
    };
    for (const target of Object.values(doc.signed.targets)) target.hashes.sha256 = 'f'.repeat(64);
    // The genuine signatures kept (now over other bytes), plus the attacker's own.
    const forged = JSON.parse(
      Buffer.from(tuf.signMetadata(doc.signed as unknown as tuf.JsonObject, [signer])).toString(),
    ) as { signatures: { keyid: string; sig: string }[] };
    const signatures = [...doc.signatures, ...forged.signatures];
    return Buffer.from(JSON.stringify({ signed: doc.signed, signatures }));
  });
}
