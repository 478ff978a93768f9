/**
 * Our own TUF client (src/core/tuf over src/node/tuf's file store) pointed at a repository of
 * ours, from a trusted root file (TUF spec §5.2). With a machine key the fetcher sends it as
 * the manifest route wants it; without one it is the plain HttpBytesFetcher.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TufError, TufUpdater, type TufFetcher } from '#core/tuf/index.js';
import { FileMetadataStore, HttpBytesFetcher } from '#node/tuf/index.js';

/** GETs with a bearer; 403/404 are NOT_FOUND (the end of the root chain, TUF spec §5.3.3). */
class BearerBytesFetcher implements TufFetcher {
  constructor(private readonly machineKey: string) {}

  async get(url: string, maxBytes: number): Promise<Uint8Array> {
    const res = await fetch(url, { headers: { authorization: `Bearer ${this.machineKey}` } });
    if (res.status === 403 || res.status === 404) {
      throw new TufError('NOT_FOUND', `GET ${url}: ${res.status}`);
    }
    if (!res.ok) throw new TufError('FETCH_FAILED', `GET ${url}: ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > maxBytes) throw new TufError('TOO_LARGE', `GET ${url}: too large`);
    return bytes;
  }
}

export async function ownTufClient(options: {
  readonly dir: string;
  readonly trustedRoot: Uint8Array;
  readonly metadataBaseUrl: string;
  readonly machineKey?: string;
}): Promise<{ updater: TufUpdater; store: FileMetadataStore }> {
  const dir = join(options.dir, 'own-metadata');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'root.json'), options.trustedRoot);
  const store = new FileMetadataStore(dir);
  const fetcher =
    options.machineKey === undefined
      ? new HttpBytesFetcher({ timeoutMs: 10_000 })
      : new BearerBytesFetcher(options.machineKey);
  const updater = await TufUpdater.open({
    metadataBaseUrl: options.metadataBaseUrl,
    fetcher,
    store,
    clock: { nowMs: () => Date.now() },
  });
  return { updater, store };
}
