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
import { describe, expect, it } from 'vitest';
import { expectedFiles, nginxSuite } from '#test/nginx-release.js';
import { makeTestPki } from '#test/tls-cert.js';
import { filesOf, snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import { cliArgs, expectRefusal, runCli, updateOnce } from '#test/updater-harness.js';

const ARTIFACT_COUNT = 24;
const ARTIFACT_BYTES = 20 * 1024;

const pki = makeTestPki();
const s = nginxSuite(
  { count: ARTIFACT_COUNT, bytes: ARTIFACT_BYTES, prefix: 'qa-nginx-tls' },
  { tls: { certPem: pki.certPem, keyPem: pki.keyPem } },
);

describe('artifacts on an https nginx', () => {
  it('installs them over verified TLS, all of them checked against their digests', async () => {
    expect(s.nginx.baseUrl).toMatch(/^https:\/\//);
    const v1 = s.release(100);
    await s.publish('1.0.0', v1);
    const result = await updateOnce(s.server, s.dir, { ca: pki.caPem });
    expect(result.outcome).toBe('applied');
    expect(filesOf(await snapshotTree(join(s.dir, 'current')))).toEqual(expectedFiles(v1));
    const log = (await s.nginx.accessLog()).filter((a) => a.uri.startsWith('/1.0.0/'));
    expect(log.length).toBe(ARTIFACT_COUNT);
    expect(log.every((a) => a.status === 200 && !a.hadAuthorization)).toBe(true);
    // At most `limits.parallel` (4 by default) connections for all of them: kept, not redone.
    expect(new Set(log.map((a) => a.connection)).size).toBeLessThanOrEqual(4);
  });

  it('refuses a host whose certificate it does not trust, and keeps DIR/current', async () => {
    const v1 = s.release(200);
    await s.publish('2.0.0', v1);
    await updateOnce(s.server, s.dir, { ca: pki.caPem });
    const before = snapshotObject(await snapshotTree(join(s.dir, 'current')));
    await s.publish('2.1.0', s.release(300));
    const requestsBefore = (await s.nginx.accessLog()).length;
    await expectRefusal(updateOnce(s.server, s.dir, { ca: makeTestPki().caPem }), 'NETWORK');
    expect(snapshotObject(await snapshotTree(join(s.dir, 'current')))).toEqual(before);
    // The handshake failed: nginx never saw a request.
    expect((await s.nginx.accessLog()).length).toBe(requestsBefore);
  });

  it('the CLI trusts a private authority named by NODE_EXTRA_CA_CERTS', async () => {
    const v1 = s.release(400);
    await s.publish('4.0.0', v1);
    const caFile = join(await s.dirs.make('qa-nginx-tls-ca-'), 'ca.pem');
    await writeFile(caFile, pki.caPem);
    const target = { ...s.server, dir: s.dir };
    const refused = await runCli(cliArgs('update', target), {
      env: { NODE_EXTRA_CA_CERTS: '' },
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.json).toMatchObject({ ok: false, command: 'update', code: 'NETWORK' });
    const r = await runCli(cliArgs('update', target), { env: { NODE_EXTRA_CA_CERTS: caFile } });
    expect(r.json).toMatchObject({ ok: true, outcome: 'applied', version: '4.0.0' });
    expect(filesOf(await snapshotTree(join(s.dir, 'current')))).toEqual(expectedFiles(v1));
  });
});
