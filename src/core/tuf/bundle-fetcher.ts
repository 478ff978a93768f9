/**
 * The one-request check, client side (docs/PROTOCOL.md §TUF repository, One request): a
 * TufFetcher in front of another that GETs the repository's bundle once, on the run's first
 * request, and answers from it `timestamp.json` (with the nonce the bundle was asked for),
 * the `N.snapshot.json` and `N.targets.json` it holds, and "no such root" for a root above
 * the newest it names. Everything else, and everything when the repository has no bundle,
 * goes to the inner fetcher. One per run, as the TufUpdater is. The workflow and every check stay as they are: a member is the
 * same bytes the file route would give, so a tampered member is refused as a tampered file.
 */
import { decodeBase64Strict } from '#protocol';
import { TufError, isJsonObject, isTufError, parseStrictJson } from '#protocol/tuf/index.js';
import type { TufFetcher } from './ports.js';
import { withSlash } from './role-names.js';

/** Base64 of 5 MB of targets and 2 MB of snapshot, and the format 1 fields beside them. */
export const DEFAULT_MAX_BUNDLE_BYTES = 16_000_000;

export interface BundleFetcherOptions {
  /** The metadata base URL the TufUpdater is given. */
  readonly metadataBaseUrl: string;
  /** The bundle's URL, e.g. `https://host/api/updates/manifest?format=tuf`. */
  readonly bundleUrl: string;
  /** Asks for the bundle with this nonce; must be the TufUpdater's `nonce`. */
  readonly nonce?: string;
  readonly maxBundleBytes?: number;
}

interface Bundle {
  readonly rootVersion: number;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

const ROOT_NAME = /^([1-9][0-9]{0,15})\.root\.json$/;

export class BundleFetcher implements TufFetcher {
  #bundle: Promise<Bundle | undefined> | undefined;
  readonly #base: string;

  constructor(
    private readonly inner: TufFetcher,
    private readonly options: BundleFetcherOptions,
  ) {
    this.#base = withSlash(options.metadataBaseUrl);
  }

  async get(url: string, maxBytes: number): Promise<Uint8Array> {
    if (!url.startsWith(this.#base)) return this.inner.get(url, maxBytes);
    const name = url.slice(this.#base.length);
    const bundle = await (this.#bundle ??= this.#load());
    if (bundle === undefined) return this.inner.get(url, maxBytes);
    const root = ROOT_NAME.exec(name);
    if (root !== null) {
      // TUF spec §5.3.3: the repository has no newer root; as a 404 from the file route.
      if (Number(root[1]) > bundle.rootVersion) {
        throw new TufError('NOT_FOUND', `the bundle names root v${bundle.rootVersion} as newest`);
      }
      return this.inner.get(url, maxBytes);
    }
    const member = this.#member(bundle, name);
    if (member === undefined) return this.inner.get(url, maxBytes);
    if (member.length > maxBytes) {
      throw new TufError('TOO_LARGE', `${name} in the bundle is over ${maxBytes} bytes`);
    }
    return member;
  }

  /** The member answering `name`; a timestamp asked with another nonce is not one. */
  #member(bundle: Bundle, name: string): Uint8Array | undefined {
    if (name === this.#timestampName()) return bundle.files.get('timestamp.json');
    if (name.startsWith('timestamp.json') || name.includes('?')) return undefined;
    return bundle.files.get(name);
  }

  /** The timestamp name the workflow asks for with the nonce this bundle was fetched with. */
  #timestampName(): string {
    const nonce = this.options.nonce;
    return nonce === undefined
      ? 'timestamp.json'
      : `timestamp.json?nonce=${encodeURIComponent(nonce)}`;
  }

  async #load(): Promise<Bundle | undefined> {
    const { bundleUrl, nonce } = this.options;
    const url =
      nonce === undefined
        ? bundleUrl
        : `${bundleUrl}${bundleUrl.includes('?') ? '&' : '?'}nonce=${encodeURIComponent(nonce)}`;
    let bytes: Uint8Array;
    try {
      bytes = await this.inner.get(url, this.options.maxBundleBytes ?? DEFAULT_MAX_BUNDLE_BYTES);
    } catch (error) {
      // No bundle here (an older server, or nothing published): the files are fetched one by one.
      if (isTufError(error, 'NOT_FOUND')) return undefined;
      throw error;
    }
    // A server that predates the bundle ignores `format=tuf` and answers its format 1/2 body:
    // the files are fetched one by one, exactly as from a server with no bundle.
    if (!claimsBundle(bytes)) return undefined;
    return parseBundle(bytes);
  }
}

/** Whether the body says it is a bundle (`"format": "tuf"`); anything unreadable is not. */
function claimsBundle(bytes: Uint8Array): boolean {
  try {
    const body = parseStrictJson(bytes);
    return isJsonObject(body) && body['format'] === 'tuf';
  } catch {
    return false;
  }
}

/** The bundle's members; a body that is not a bundle is FETCH_FAILED (fail closed). */
export function parseBundle(bytes: Uint8Array): Bundle {
  const bad = (why: string) => new TufError('FETCH_FAILED', `not a TUF bundle: ${why}`);
  let body;
  try {
    body = parseStrictJson(bytes);
  } catch (error) {
    throw bad(isTufError(error) ? error.code : 'unreadable');
  }
  if (!isJsonObject(body) || body['format'] !== 'tuf') throw bad('no "format": "tuf"');
  const rootVersion = body['root_version'];
  const metadata = body['metadata'];
  if (typeof rootVersion !== 'number' || !Number.isSafeInteger(rootVersion) || rootVersion < 1) {
    throw bad('"root_version" is not a version');
  }
  if (!isJsonObject(metadata)) throw bad('"metadata" is not an object');
  const files = new Map<string, Uint8Array>();
  for (const [name, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') throw bad(`${name} is not base64`);
    try {
      files.set(name, decodeBase64Strict(value, name));
    } catch {
      throw bad(`${name} is not base64`);
    }
  }
  return { rootVersion, files };
}
