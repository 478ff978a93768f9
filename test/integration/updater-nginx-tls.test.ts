/**
 * Artifacts on an https nginx (docs/UPDATER.md §5, "Pipelined GETs"): their GETs share a few
 * verified TLS connections, every byte still checked against the signed digest; a certificate
 * the updater does not trust stops the pull before any byte is taken, and the CLI trusts a
 * private authority through NODE_EXTRA_CA_CERTS, as node documents. That the GETs of one
 * connection are pipelined is shown against a server that answers only pipelined requests
 * (test/unit/node/pipeline-tls.test.ts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHostileServer, type HostileServer } from '../helpers/hostile-server.js';
import {
  expectedFiles,
  publishViaNginx,
  release as releaseOf,
  type Files,
} from '../helpers/nginx-release.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import { makeTestPki, type TestPki } from '../helpers/tls-cert.js';
import { filesOf, snapshotObject, snapshotTree } from '../helpers/tree-snapshot.js';
import {
  cliArgs,
  expectRefusal,
  runCli,
  tempDirs,
  updateOnce,
} from '../helpers/updater-harness.js';

const ARTIFACT_COUNT = 24;
const ARTIFACT_BYTES = 20 * 1024;

const dirs = tempDirs();
let pki: TestPki;
let nginx: Nginx;
let root: string;
let server: HostileServer;
let dir: string;

const release = (seed: number): Files => releaseOf(ARTIFACT_COUNT, ARTIFACT_BYTES, seed);

const publish = (version: string, files: Files): Promise<void> =>
  publishViaNginx({ root, nginx, server }, version, files);

beforeAll(async () => {
  pki = makeTestPki();
  root = await dirs.make('qa-nginx-tls-root-');
  nginx = await startNginx(root, { tls: { certPem: pki.certPem, keyPem: pki.keyPem } });
});

afterAll(async () => {
  await nginx.stop();
  await dirs.cleanup();
});

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-nginx-tls-dir-');
});

afterEach(async () => {
  await server.close();
});

describe('artifacts on an https nginx', () => {
  it('installs them over verified TLS, all of them checked against their digests', async () => {
    expect(nginx.baseUrl).toMatch(/^https:\/\//);
    const v1 = release(100);
    await publish('1.0.0', v1);
    const result = await updateOnce(server, dir, { ca: pki.caPem });
    expect(result.outcome).toBe('applied');
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual(expectedFiles(v1));
    const log = (await nginx.accessLog()).filter((a) => a.uri.startsWith('/1.0.0/'));
    expect(log.length).toBe(ARTIFACT_COUNT);
    expect(log.every((a) => a.status === 200 && !a.hadAuthorization)).toBe(true);
    // At most `limits.parallel` (4 by default) connections for all of them: kept, not redone.
    expect(new Set(log.map((a) => a.connection)).size).toBeLessThanOrEqual(4);
  });

  it('refuses a host whose certificate it does not trust, and keeps DIR/current', async () => {
    const v1 = release(200);
    await publish('2.0.0', v1);
    await updateOnce(server, dir, { ca: pki.caPem });
    const before = snapshotObject(await snapshotTree(join(dir, 'current')));
    await publish('2.1.0', release(300));
    const requestsBefore = (await nginx.accessLog()).length;
    await expectRefusal(updateOnce(server, dir, { ca: makeTestPki().caPem }), 'NETWORK');
    expect(snapshotObject(await snapshotTree(join(dir, 'current')))).toEqual(before);
    // The handshake failed: nginx never saw a request.
    expect((await nginx.accessLog()).length).toBe(requestsBefore);
  });

  it('the CLI trusts a private authority named by NODE_EXTRA_CA_CERTS', async () => {
    const v1 = release(400);
    await publish('4.0.0', v1);
    const caFile = join(await dirs.make('qa-nginx-tls-ca-'), 'ca.pem');
    await writeFile(caFile, pki.caPem);
    const target = { ...server, dir };
    const refused = await runCli(cliArgs('update', target), {
      env: { NODE_EXTRA_CA_CERTS: '' },
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.json).toMatchObject({ ok: false, command: 'update', code: 'NETWORK' });
    const r = await runCli(cliArgs('update', target), { env: { NODE_EXTRA_CA_CERTS: caFile } });
    expect(r.json).toMatchObject({ ok: true, outcome: 'applied', version: '4.0.0' });
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual(expectedFiles(v1));
  });
});
