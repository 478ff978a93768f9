/**
 * The companion server as a TUF 1.0 repository (docs/PROTOCOL.md §TUF repository), proven with
 * tuf-js as the independent client: it refreshes from the live routes behind the machine key,
 * downloads a target by its consistent-snapshot name and reads the product's custom fields.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
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

  it('refuses metadata without the machine key', async () => {
    const res = await fetch(`${base()}/timestamp.json`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('MISSING_MACHINE_KEY');
  });
});
