/**
 * The one-request check and the nonce against the live server (docs/PROTOCOL.md §TUF
 * repository, One request and Nonce): our client behind BundleFetcher makes a no-op check in
 * one GET, and tuf-js (which keeps a field it does not know) reads a nonce timestamp.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleFetcher, TufError, TufUpdater, type TufFetcher } from '#core/tuf/index.js';
import { FileMetadataStore } from '#node/tuf/index.js';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { rotateIn, rotationServed } from '#test/rotate-kit.js';
import { BearerFetcher, tufJsClient } from '#test/tuf-js-client.js';
import { tempDirs } from '#test/updater-harness.js';

const dirs = tempDirs();
const NONCE = 'per-request-nonce-0123';
let server: RunningServer;
let machineKey: string;

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0 });
  machineKey = (await server.updates.mintMachineKey()).machine_key;
  await server.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'app.bin', content: new TextEncoder().encode('version 1\n') }],
  });
});

afterAll(async () => {
  await server.close();
  await dirs.cleanup();
});

const base = () => `${server.url}/api/updates/tuf`;

/** GETs with the machine key, counting every request. */
class CountingFetcher implements TufFetcher {
  readonly urls: string[] = [];
  async get(url: string, maxBytes: number): Promise<Uint8Array> {
    this.urls.push(url);
    const res = await fetch(url, { headers: { authorization: `Bearer ${machineKey}` } });
    if (res.status === 403 || res.status === 404) throw new TufError('NOT_FOUND', url);
    if (!res.ok) throw new TufError('FETCH_FAILED', `${url}: ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > maxBytes) throw new TufError('TOO_LARGE', url);
    return bytes;
  }
}

async function rootOne(): Promise<Uint8Array> {
  return new Uint8Array(
    await (
      await fetch(`${base()}/1.root.json`, { headers: { authorization: `Bearer ${machineKey}` } })
    ).arrayBuffer(),
  );
}

async function check(dir: string, nonce?: string) {
  const inner = new CountingFetcher();
  const fetcher = new BundleFetcher(inner, {
    metadataBaseUrl: base(),
    bundleUrl: `${server.url}/api/updates/manifest?format=tuf`,
    ...(nonce === undefined ? {} : { nonce }),
  });
  const updater = await TufUpdater.open({
    metadataBaseUrl: base(),
    fetcher,
    store: new FileMetadataStore(dir),
    clock: { nowMs: () => Date.now() },
    ...(nonce === undefined ? {} : { nonce }),
  });
  const target = await updater.requireTargetInfo('app.bin');
  return { updater, target, urls: inner.urls };
}

describe('the bundle read by our client', () => {
  it('makes the first check and a no-op check one request each', async () => {
    const dir = await dirs.make('own-bundle-');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'root.json'), await rootOne());
    const first = await check(dir);
    expect(first.target.length).toBe(10);
    expect(first.urls).toEqual([`${server.url}/api/updates/manifest?format=tuf`]);
    const again = await check(dir);
    expect(again.urls).toHaveLength(1);
    const withNonce = await check(dir, NONCE);
    expect(withNonce.urls).toEqual([
      `${server.url}/api/updates/manifest?format=tuf&nonce=${NONCE}`,
    ]);
    // Same version as the trusted timestamp: checked for the nonce, then kept as it was.
    expect(withNonce.updater.trusted.timestamp?.signed.nonce).toBeUndefined();
    const fresh = await dirs.make('own-bundle-nonce-');
    await writeFile(join(fresh, 'root.json'), await rootOne());
    const fromNonce = await check(fresh, NONCE);
    expect(fromNonce.updater.trusted.timestamp?.signed.nonce).toBe(NONCE);
  });
});

/** tuf-js asking for `timestamp.json?nonce=X` (its fetcher adds the query). */
class NonceFetcher extends BearerFetcher {
  override fetch(url: string) {
    return super.fetch(url.endsWith('/timestamp.json') ? `${url}?nonce=${NONCE}` : url);
  }
}

describe('a nonce timestamp read by tuf-js', () => {
  it('refreshes from a nonce timestamp, first and at the version it already trusts', async () => {
    const dir = await dirs.make('tuf-js-nonce-');
    const plain = await tufJsClient({
      dir,
      trustedRoot: await rootOne(),
      metadataBaseUrl: base(),
      targetBaseUrl: `${base()}/targets`,
      machineKey,
    });
    await plain.updater.refresh();
    const { Updater } = await import('tuf-js');
    for (const round of ['equal version', 'again']) {
      const fetcher = new NonceFetcher(machineKey);
      const updater = new Updater({
        metadataDir: plain.metadataDir,
        metadataBaseUrl: base(),
        targetDir: plain.targetDir,
        targetBaseUrl: `${base()}/targets`,
        fetcher,
      });
      await updater.refresh();
      expect(await updater.getTargetInfo('app.bin'), round).toBeDefined();
      expect(fetcher.urls).toContain(`${base()}/timestamp.json?nonce=${NONCE}`);
    }
    const fresh = await dirs.make('tuf-js-nonce-fresh-');
    const first = await tufJsClient({
      dir: fresh,
      trustedRoot: await rootOne(),
      metadataBaseUrl: base(),
      targetBaseUrl: `${base()}/targets`,
      machineKey,
    });
    const fetcher = new NonceFetcher(machineKey);
    const updater = new Updater({
      metadataDir: first.metadataDir,
      metadataBaseUrl: base(),
      targetDir: first.targetDir,
      targetBaseUrl: `${base()}/targets`,
      fetcher,
    });
    await updater.refresh();
    const { readFile } = await import('node:fs/promises');
    const stored = JSON.parse(
      await readFile(join(first.metadataDir, 'timestamp.json'), 'utf8'),
    ) as {
      signed: { nonce?: string };
    };
    // tuf-js keeps the field it does not know when it stores the timestamp.
    expect(stored.signed.nonce).toBe(NONCE);
  });
});

describe('the bundle while the repository changes', () => {
  interface BundleBody {
    readonly root_version: number;
    readonly metadata: Record<string, string>;
  }
  const bundle = async (): Promise<BundleBody> => {
    const res = await fetch(`${server.url}/api/updates/manifest?format=tuf`, {
      headers: { authorization: `Bearer ${machineKey}` },
    });
    return (await res.json()) as BundleBody;
  };
  const targetsName = (body: BundleBody) =>
    Object.keys(body.metadata).find((name) => name.endsWith('.targets.json'));

  it('names the new targets after a publish and the new root after rotate-keys', async () => {
    const before = await bundle();
    expect(await bundle()).toEqual(before);
    await server.publish({
      registry_version: '1.5.0',
      artifacts: [{ name: 'app.bin', content: new TextEncoder().encode('version 1.5\n') }],
    });
    const published = await bundle();
    expect(targetsName(published)).not.toBe(targetsName(before));
    expect(published.root_version).toBe(before.root_version);

    await rotateIn(server.dataDir, { newFreshnessKey: true }, () => server.clock.now());
    await rotationServed(
      (name) => fetch(`${base()}/${name}`, { headers: { authorization: `Bearer ${machineKey}` } }),
      before.root_version + 1,
    );
    const rotated = await bundle();
    expect(rotated.root_version).toBe(before.root_version + 1);
    expect(rotated.metadata['timestamp.json']).not.toBe(published.metadata['timestamp.json']);
  });
});
