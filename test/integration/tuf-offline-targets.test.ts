/**
 * The production path of the TUF repository (docs/PROTOCOL.md §TUF repository, Roles and
 * keys): the release keys go offline as a 2-of-2 targets role (root 2), a release is signed
 * and its targets co-signed away from the server, installed, and tuf-js — starting from root
 * 1 — follows root 2 and downloads the release's target signed only by the offline keys.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSignatures, RELEASE_PAYLOAD_TYPE, signDsse } from '#protocol';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { createRandom } from '#server/platform/random.js';
import { rotateKeys } from '#server/updates/keys/rotate-keys.js';
import { buildRelease, hashArtifact } from '#server/updates/publish/release-builder.js';
import {
  coSignTargets,
  installTargets,
  targetsFromBundle,
} from '#server/updates/tuf/offline-targets.js';
import { tufJsClient } from '#test/tuf-js-client.js';
import { newKey } from '#test/trust-kit.js';
import { tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
let server: RunningServer;
let machineKey: string;
const offline = [newKey(), newKey()];

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0 });
  machineKey = (await server.updates.mintMachineKey()).machine_key;
});
afterAll(async () => {
  await server.close();
  await dirs.cleanup();
});

const base = () => `${server.url}/api/updates/tuf`;
const get = (name: string) =>
  fetch(`${base()}/${name}`, { headers: { authorization: `Bearer ${machineKey}` } });

describe('targets signed offline', () => {
  it('are served under root 2 and read by tuf-js from root 1', async () => {
    const rootOne = new Uint8Array(await (await get('1.root.json')).arrayBuffer());
    // The current release co-signed by the offline keys first (rotate-keys requires it).
    const current = server.updates.currentRelease()!;
    await server.publish({ bundle: addSignatures(current.envelope, offline), artifacts: [] });
    await rm(join(server.dataDir, 'release-key.json'));
    await rotateKeys(
      {
        dataDir: server.dataDir,
        rootKeyFiles: [],
        newRootKeyFiles: [],
        rootThreshold: undefined,
        releasePubkeys: offline.map((k) => k.hex),
        newReleaseKey: false,
        releaseThreshold: 2,
        newFreshnessKey: false,
      },
      createRandom(undefined),
      () => server.clock.now(),
    );
    expect((await get('2.root.json')).status).toBe(200);

    const content = new TextEncoder().encode('signed far from the server\n');
    const { payload } = await buildRelease(
      { registry_version: '2.0.0', artifacts: [{ name: 'app.bin', content }] },
      hashArtifact,
    );
    const bundle = signDsse(payload, RELEASE_PAYLOAD_TYPE, offline);
    // The running server picks the rotation up from the keys directory it watches.
    await waitFor(() =>
      server.publish({ bundle, artifacts: [{ name: 'app.bin', content }] }).then(
        () => true,
        () => false,
      ),
    );
    const one = targetsFromBundle(bundle, 10, [offline[0]!], Date.now());
    await expect(
      installTargets(server.dataDir, one, server.updates.currentRelease()?.manifest),
    ).rejects.toMatchObject({
      code: 'THRESHOLD_NOT_MET',
    });
    await installTargets(
      server.dataDir,
      coSignTargets(one, [offline[1]!]),
      server.updates.currentRelease()?.manifest,
    );

    const client = await tufJsClient({
      dir: await dirs.make('tuf-offline-'),
      trustedRoot: rootOne,
      metadataBaseUrl: base(),
      targetBaseUrl: `${base()}/targets`,
      machineKey,
    });
    await client.updater.refresh();
    const info = await client.updater.getTargetInfo('app.bin');
    const path = await client.updater.downloadTarget(info!, join(client.targetDir, 'app.bin'));
    expect(new Uint8Array(await readFile(path))).toEqual(content);
    const targets = JSON.parse(
      await readFile(join(client.metadataDir, 'targets.json'), 'utf8'),
    ) as {
      signed: { version: number; custom: { registry_version: string } };
    };
    expect(targets.signed).toMatchObject({ version: 10, custom: { registry_version: '2.0.0' } });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting for the server');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
