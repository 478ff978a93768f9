/**
 * The one-request check (docs/PROTOCOL.md §TUF repository, One request): BundleFetcher answers
 * the top-level files from one GET and leaves every check to the workflow.
 */
import { describe, expect, it } from 'vitest';
import { BundleFetcher, TufUpdater, parseBundle } from '#core/tuf/index.js';
import { SimRepo } from './sim-repo.js';
import { BASE, NOW, signed } from './tuf-kit.js';

const BUNDLE = 'https://repo.test/api/updates/manifest?format=tuf';
const NONCE = 'n0nce-0123456789abcdef';

/** The repository's current files as the server's bundle carries them. */
function bundleOf(repo: SimRepo, nonce?: string): Uint8Array {
  const timestamp = repo.published.get('timestamp.json')!;
  const snapshotName = `${repo.snapshot.version}.snapshot.json`;
  const targetsName = `${repo.roles.get('targets')!.version}.targets.json`;
  const metadata = {
    'timestamp.json': timestampFor(repo, timestamp, nonce),
    [snapshotName]: repo.published.get(snapshotName)!,
    [targetsName]: repo.published.get(targetsName)!,
  };
  return encode(repo.rootVersion, metadata);
}

function timestampFor(repo: SimRepo, bytes: Uint8Array, nonce: string | undefined): Uint8Array {
  if (nonce === undefined) return bytes;
  const body = (JSON.parse(Buffer.from(bytes).toString()) as { signed: Record<string, unknown> })
    .signed;
  return signed({ ...body, nonce }, repo.keys.timestamp);
}

function encode(rootVersion: number, files: Record<string, Uint8Array>): Uint8Array {
  const metadata = Object.fromEntries(
    Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]),
  );
  return Buffer.from(
    JSON.stringify({ ok: true, format: 'tuf', root_version: rootVersion, metadata }),
  );
}

function consistentRepo(): SimRepo {
  const repo = new SimRepo();
  repo.consistent = true;
  repo.initialRoot = repo.publishRoot();
  repo.addTarget('targets', 'app.bin', 'version 1');
  repo.publish();
  return repo;
}

async function run(
  repo: SimRepo,
  options: { nonce?: string; bundleNonce?: string | undefined } = {},
): Promise<TufUpdater> {
  if (!repo.store.files.has('root')) await repo.store.write('root', repo.initialRoot);
  const bundleNonce = 'bundleNonce' in options ? options.bundleNonce : options.nonce;
  const fetcher = new BundleFetcher(repo.fetcher, {
    metadataBaseUrl: BASE,
    bundleUrl: BUNDLE,
    ...(bundleNonce === undefined ? {} : { nonce: bundleNonce }),
  });
  const updater = await TufUpdater.open({
    metadataBaseUrl: BASE,
    fetcher,
    store: repo.store,
    clock: { nowMs: () => NOW },
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  });
  await updater.refresh();
  return updater;
}

function serveBundle(repo: SimRepo, bytes = bundleOf(repo), url = BUNDLE): void {
  repo.fetcher.files.set(url, bytes);
}

describe('BundleFetcher', () => {
  it('makes a first check and a no-op check ONE request each', async () => {
    const repo = consistentRepo();
    serveBundle(repo);
    const first = await run(repo);
    expect(await first.getTargetInfo('app.bin')).toMatchObject({ length: 9 });
    expect(repo.fetcher.requests).toEqual([BUNDLE]);
    repo.fetcher.requests.length = 0;
    await run(repo);
    expect(repo.fetcher.requests).toEqual([BUNDLE]);
    expect(repo.store.version('targets')).toBe(1);
  });

  it('takes a new release from the bundle in the same one request', async () => {
    const repo = consistentRepo();
    serveBundle(repo);
    await run(repo);
    repo.addTarget('targets', 'app.bin', 'version 2!');
    repo.bump('targets');
    serveBundle(repo);
    repo.fetcher.requests.length = 0;
    const next = await run(repo);
    expect(await next.getTargetInfo('app.bin')).toMatchObject({ length: 10 });
    expect(repo.fetcher.requests).toEqual([BUNDLE]);
  });

  it('walks a rotated root through the inner fetcher, and stops at the root the bundle names', async () => {
    const repo = consistentRepo();
    serveBundle(repo);
    await run(repo);
    repo.rotateRoot(() => undefined);
    serveBundle(repo);
    repo.fetcher.requests.length = 0;
    const next = await run(repo);
    expect(next.trusted.root.signed.version).toBe(2);
    expect(repo.fetcher.requests).toEqual([BUNDLE, `${BASE}2.root.json`]);
  });

  it('fetches the files one by one when the repository has no bundle (404)', async () => {
    const repo = consistentRepo();
    const updater = await run(repo);
    expect(await updater.getTargetInfo('app.bin')).toBeDefined();
    expect(repo.fetcher.requests).toEqual([
      BUNDLE,
      `${BASE}2.root.json`,
      `${BASE}timestamp.json`,
      `${BASE}1.snapshot.json`,
      `${BASE}1.targets.json`,
    ]);
  });

  it('refuses a body that is not a bundle (FETCH_FAILED)', async () => {
    const repo = consistentRepo();
    serveBundle(repo, Buffer.from('{"format":"tuf","root_version":1,"metadata":{"a":"!!"}}'));
    await expect(run(repo)).rejects.toMatchObject({ code: 'FETCH_FAILED' });
    expect(() => parseBundle(Buffer.from('{"format":2}'))).toThrow(/format/);
    expect(() => parseBundle(Buffer.from('{"format":"tuf","format":"tuf"}'))).toThrow(/DUPLICATE/);
  });
});

/** Refreshes with `tamper` applied to the file `name`, through the bundle or the file route. */
async function refusal(name: string, tamper: (b: Uint8Array) => Uint8Array, viaBundle: boolean) {
  const repo = consistentRepo();
  const bytes = viaBundle ? bundleOf(repo) : undefined;
  if (bytes !== undefined) {
    const body = JSON.parse(Buffer.from(bytes).toString()) as {
      metadata: Record<string, string>;
    };
    const member = Buffer.from(body.metadata[name]!, 'base64');
    body.metadata[name] = Buffer.from(tamper(member)).toString('base64');
    serveBundle(repo, Buffer.from(JSON.stringify({ format: 'tuf', root_version: 1, ...body })));
  } else {
    repo.fetcher.files.set(`${BASE}${name}`, tamper(repo.published.get(name)!));
  }
  const error = await run(repo).then(
    () => undefined,
    (e: unknown) => e as { code: string },
  );
  return { code: error?.code, stored: [...repo.store.files.keys()].sort() };
}

const flipLastSigChar = (b: Uint8Array): Uint8Array => {
  const text = Buffer.from(b).toString();
  const at = text.indexOf('"sig":"') + 7;
  const c = text[at] === '0' ? '1' : '0';
  return Buffer.from(text.slice(0, at) + c + text.slice(at + 1));
};
const addSpace = (b: Uint8Array): Uint8Array => Buffer.concat([Buffer.from(b), Buffer.from(' ')]);

describe('a bundle with tampered members is refused as tampered files are', () => {
  for (const [name, tamper, code] of [
    ['timestamp.json', flipLastSigChar, 'THRESHOLD_NOT_MET'],
    // Timestamp pins the snapshot's length: one byte more is over the cap.
    ['1.snapshot.json', addSpace, 'TOO_LARGE'],
    ['1.targets.json', flipLastSigChar, 'HASH_MISMATCH'],
  ] as const) {
    it(`${name}: ${code}, nothing new trusted`, async () => {
      const viaFile = await refusal(name, tamper, false);
      const viaBundle = await refusal(name, tamper, true);
      expect(viaFile.code).toBe(code);
      expect(viaBundle).toEqual(viaFile);
    });
  }
});

describe('the request nonce (TufUpdaterOptions.nonce)', () => {
  it('sends the nonce and accepts the timestamp signed with it', async () => {
    const repo = consistentRepo();
    serveBundle(repo, bundleOf(repo, NONCE), `${BUNDLE}&nonce=${NONCE}`);
    const updater = await run(repo, { nonce: NONCE });
    expect(updater.trusted.timestamp?.signed.nonce).toBe(NONCE);
    expect(repo.fetcher.requests).toEqual([`${BUNDLE}&nonce=${NONCE}`]);
  });

  it('accepts the nonce timestamp at the version already trusted (TUF spec §5.4.3)', async () => {
    const repo = consistentRepo();
    serveBundle(repo);
    await run(repo);
    serveBundle(repo, bundleOf(repo, NONCE), `${BUNDLE}&nonce=${NONCE}`);
    await expect(run(repo, { nonce: NONCE })).resolves.toBeDefined();
  });

  it('refuses a timestamp without the nonce (NONCE_MISMATCH), nothing stored', async () => {
    const repo = consistentRepo();
    serveBundle(repo, bundleOf(repo), `${BUNDLE}&nonce=${NONCE}`);
    await expect(run(repo, { nonce: NONCE })).rejects.toMatchObject({ code: 'NONCE_MISMATCH' });
    expect(repo.store.files.has('timestamp')).toBe(false);
  });

  it('refuses a timestamp with another nonce (NONCE_MISMATCH) on the file route too', async () => {
    const repo = consistentRepo();
    const other = timestampFor(repo, repo.published.get('timestamp.json')!, 'another-nonce-000000');
    repo.fetcher.files.set(`${BASE}timestamp.json?nonce=${NONCE}`, other);
    await expect(run(repo, { nonce: NONCE })).rejects.toMatchObject({ code: 'NONCE_MISMATCH' });
  });

  it('does not answer a nonce timestamp from a bundle fetched without it', async () => {
    const repo = consistentRepo();
    serveBundle(repo);
    await expect(run(repo, { nonce: NONCE, bundleNonce: undefined })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(repo.fetcher.requests).toEqual([BUNDLE, `${BASE}timestamp.json?nonce=${NONCE}`]);
  });
});
