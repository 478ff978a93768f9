/**
 * The companion server as a TUF 1.0 repository (docs/PROTOCOL.md §TUF repository), proven with
 * tuf-js as the independent client: it refreshes from the live routes behind the machine key,
 * downloads a target by its consistent-snapshot name and reads the product's custom fields.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { ownTufClient } from '#test/own-tuf-client.js';
import { rotateIn, rotationServed } from '#test/rotate-kit.js';
import { tufJsClient } from '#test/tuf-js-client.js';
import { tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
let server: RunningServer;
let machineKey: string;

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0 });
  const minted = await server.updates.mintMachineKey();
  machineKey = minted.machine_key;
});

afterAll(async () => {
  await server.close();
  await dirs.cleanup();
});

const base = () => `${server.url}/api/updates/tuf`;

async function rootOne(): Promise<Uint8Array> {
  const res = await fetch(`${base()}/1.root.json`, {
    headers: { authorization: `Bearer ${machineKey}` },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe('the TUF repository read by tuf-js', () => {
  it('refreshes from the live routes and downloads a target by its consistent name', async () => {
    const content = new TextEncoder().encode('the application, version 1.2.0\n');
    await server.publish({
      registry_version: '1.2.0',
      artifacts: [{ name: 'bin/app.bin', content }],
    });
    const client = await tufJsClient({
      dir: await dirs.make('tuf-js-live-'),
      trustedRoot: await rootOne(),
      metadataBaseUrl: base(),
      targetBaseUrl: `${base()}/targets`,
      machineKey,
    });
    await client.updater.refresh();
    const info = await client.updater.getTargetInfo('bin/app.bin');
    expect(info?.length).toBe(content.length);
    const path = await client.updater.downloadTarget(info!, join(client.targetDir, 'app.bin'));
    expect(new Uint8Array(await readFile(path))).toEqual(content);
    const targets = JSON.parse(
      await readFile(join(client.metadataDir, 'targets.json'), 'utf8'),
    ) as { signed: { custom: { registry_version: string } } };
    expect(targets.signed.custom.registry_version).toBe('1.2.0');
    expect(client.fetcher.urls.some((u) => /\/targets\/bin\/[0-9a-f]{64}\.app\.bin$/.test(u))).toBe(
      true,
    );
  });

  it('is read by our own TUF client (src/core/tuf) too', async () => {
    const own = await ownTufClient({
      dir: await dirs.make('own-tuf-live-'),
      trustedRoot: await rootOne(),
      metadataBaseUrl: base(),
      machineKey,
    });
    const info = await own.updater.requireTargetInfo('bin/app.bin');
    const bytes = await own.updater.downloadTarget(info, `${base()}/targets`);
    expect(new TextDecoder().decode(bytes)).toBe('the application, version 1.2.0\n');
    expect(info.custom).toBeUndefined();
    expect(own.updater.trusted.root.signed.consistentSnapshot).toBe(true);
  });

  it('re-signs the timestamp on the injected clock once half its lifetime is gone', async () => {
    const versionOf = async () =>
      (JSON.parse(await (await get('timestamp.json')).text()) as { signed: { version: number } })
        .signed.version;
    const before = await versionOf();
    server.clock.advance(11 * 3_600_000);
    expect(await versionOf()).toBe(before);
    server.clock.advance(2 * 3_600_000);
    expect(await versionOf()).toBe(before + 1);
  });

  it('answers 404 for names that are not repository files', async () => {
    for (const name of [
      '0.root.json',
      'root.json',
      'snapshot.json',
      '1.mirrors.json',
      '99.root.json',
    ]) {
      const res = await get(name);
      expect(res.status, name).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
    const target = await get(`targets/${'0'.repeat(64)}.app.bin`);
    expect(target.status).toBe(404);
    expect(((await target.json()) as { code: string }).code).toBe('ARTIFACT_NOT_FOUND');
    expect((await get('targets/app.bin')).status).toBe(404);
  });

  it('refuses metadata without the machine key', async () => {
    const res = await fetch(`${base()}/timestamp.json`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('MISSING_MACHINE_KEY');
  });

  it('follows a root rotation: root 2 signed by the old and the new root, the old key gone', async () => {
    const dir = await dirs.make('tuf-js-rotation-');
    const client = await tufJsClient({
      dir,
      trustedRoot: await rootOne(),
      metadataBaseUrl: base(),
      targetBaseUrl: `${base()}/targets`,
      machineKey,
    });
    await client.updater.refresh();
    const before = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer ${machineKey}` },
    });
    // Format 1 rides at the top of the answer while the node key is online.
    expect(await before.json()).toHaveProperty('payloadType');
    const offline = await dirs.make('tuf-new-root-');
    await rotateIn(
      server.dataDir,
      { newRootKeyFiles: [join(offline, 'root-2.json')], newFreshnessKey: true },
      () => server.clock.now(),
    );
    // No retired root key stays in the data directory (TUF spec §6.1).
    await expect(access(join(server.dataDir, 'node-key.json'))).rejects.toThrow();
    // The server reloads the key set it watches; tuf-js then walks 1 -> 2.
    await rotationServed(get);
    const after = await tufJsClient({
      dir,
      trustedRoot: await readFile(join(client.metadataDir, 'root.json')),
      metadataBaseUrl: base(),
      targetBaseUrl: `${base()}/targets`,
      machineKey,
    });
    await after.updater.refresh();
    const trusted = JSON.parse(await readFile(join(dir, 'metadata', 'root.json'), 'utf8')) as {
      signed: { version: number };
    };
    expect(trusted.signed.version).toBe(2);
    expect(await after.updater.getTargetInfo('bin/app.bin')).toBeDefined();
    const own = await ownTufClient({
      dir: await dirs.make('own-tuf-rotation-'),
      trustedRoot: await rootOne(),
      metadataBaseUrl: base(),
      machineKey,
    });
    await own.updater.refresh();
    expect(own.updater.trusted.root.signed.version).toBe(2);
    // Format 1 is gone with the node key: the answer carries no format 1 envelope.
    const answer = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer ${machineKey}` },
    });
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).not.toHaveProperty('payloadType');
    expect(body).toHaveProperty('release');
  });
});

function get(name: string): Promise<Response> {
  return fetch(`${base()}/${name}`, { headers: { authorization: `Bearer ${machineKey}` } });
}
