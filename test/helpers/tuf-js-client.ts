/**
 * tuf-js (an independent TUF 1.0 client) pointed at a repository of ours: a fetcher that sends
 * the machine key as the manifest route wants it, and an Updater over a fresh metadata
 * directory that trusts the given root file (TUF spec §5.2: trust starts from a root file).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BaseFetcher, Updater } from 'tuf-js';
// Not re-exported by the package's index; its updater maps this error's 404 on the next root
// to "no newer root" (TUF spec §5.3.3).
import { DownloadHTTPError } from 'tuf-js/dist/error.js';

/** GETs with `Authorization: Bearer <key>` (none when the key is undefined). */
export class BearerFetcher extends BaseFetcher {
  readonly urls: string[] = [];
  constructor(private readonly machineKey: string | undefined) {
    super();
  }

  override async fetch(url: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
    this.urls.push(url);
    const headers: Record<string, string> =
      this.machineKey === undefined ? {} : { authorization: `Bearer ${this.machineKey}` };
    const res = await fetch(url, { headers });
    if (!res.ok || res.body === null) {
      throw new DownloadHTTPError(`GET ${url}: ${res.status}`, res.status);
    }
    return res.body;
  }
}

export interface TufJsClient {
  readonly updater: Updater;
  readonly fetcher: BearerFetcher;
  readonly metadataDir: string;
  readonly targetDir: string;
}

/** A tuf-js Updater over `dir` that starts from `trustedRoot` (the bytes of N.root.json). */
export async function tufJsClient(options: {
  readonly dir: string;
  readonly trustedRoot: Uint8Array;
  readonly metadataBaseUrl: string;
  readonly targetBaseUrl: string;
  readonly machineKey?: string;
}): Promise<TufJsClient> {
  const metadataDir = join(options.dir, 'metadata');
  const targetDir = join(options.dir, 'targets');
  await mkdir(metadataDir, { recursive: true });
  await mkdir(targetDir, { recursive: true });
  await writeFile(join(metadataDir, 'root.json'), options.trustedRoot);
  const fetcher = new BearerFetcher(options.machineKey);
  const updater = new Updater({
    metadataDir,
    metadataBaseUrl: options.metadataBaseUrl,
    targetDir,
    targetBaseUrl: options.targetBaseUrl,
    fetcher,
    config: { fetchTimeout: 10_000 },
  });
  return { updater, fetcher, metadataDir, targetDir };
}
