/**
 * The key chain on disk (docs/PROTOCOL.md §2.7.4, §2.7.8): `<dataDir>/keys/<version>.json`
 * holds the envelope of key set <version> exactly as served, from 1 up without a gap. On load
 * the whole chain is walked from key set 1's own root, as a client pinning the original
 * node_pubkey would; a chain that does not verify is never served.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  envelopeFromJson,
  MAX_KEY_LINKS,
  MAX_LINK_SIGNATURES,
  parseKeySet,
  walkKeyChain,
  type DsseEnvelope,
  type KeySet,
  type ParsedEnvelope,
} from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { errorClass } from '../../server-error.js';

export const KEYS_DIR = 'keys';
/** Links carried by every manifest answer; older clients fetch GET /api/updates/keys. */
export const LINKS_IN_ANSWER = 8;

const LINK_FILE = /^([1-9][0-9]{0,5})\.json$/;

/** Thrown when the stored chain does not verify (start-up refuses, reload keeps the old one). */
export const KeyChainError = errorClass('KeyChainError', 'KEY_CHAIN_INVALID');
export type KeyChainError = InstanceType<typeof KeyChainError>;

export class KeyChainStore {
  readonly dir: string;
  #links: DsseEnvelope[] = [];
  #sets: KeySet[] = [];

  constructor(dataDir: string) {
    this.dir = join(dataDir, KEYS_DIR);
  }

  /** Reads and verifies the stored chain; an empty or missing directory is an empty chain. */
  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const versions = (await readdir(this.dir))
      .map((name) => LINK_FILE.exec(name)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    if (versions.length > MAX_KEY_LINKS) {
      throw new KeyChainError(`more than ${MAX_KEY_LINKS} key sets in ${this.dir}`);
    }
    const links: DsseEnvelope[] = [];
    for (const [i, version] of versions.entries()) {
      if (version !== i + 1) throw new KeyChainError(`key set ${i + 1} is missing in ${this.dir}`);
      const path = join(this.dir, `${version}.json`);
      const text = await readFile(path, 'utf8');
      links.push(dsseOf(text, `key set ${version} (${path})`, KEY_SET_REMEDY));
    }
    const sets = verifyChain(links);
    this.#links = links;
    this.#sets = sets;
  }

  /** Every link, oldest first (GET /api/updates/keys). */
  get links(): readonly DsseEnvelope[] {
    return this.#links;
  }

  /** The links a manifest answer carries: the newest LINKS_IN_ANSWER. */
  get answerLinks(): readonly DsseEnvelope[] {
    return this.#links.slice(-LINKS_IN_ANSWER);
  }

  get newest(): KeySet | undefined {
    return this.#sets[this.#sets.length - 1];
  }

  get first(): KeySet | undefined {
    return this.#sets[0];
  }

  /**
   * Verifies `link` as the next key set (signed by the newest root's threshold and its own)
   * and stores it atomically. Key set 1 must be signed by its own root.
   */
  async append(link: DsseEnvelope): Promise<KeySet> {
    const links = [...this.#links, link];
    const sets = verifyChain(links);
    const next = sets[sets.length - 1] as KeySet;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(this.dir, `${next.version}.json`), `${JSON.stringify(link)}\n`);
    this.#links = links;
    this.#sets = sets;
    return next;
  }
}

/** The whole chain walked from key set 1's own root; every link verified. */
function verifyChain(links: readonly DsseEnvelope[]): KeySet[] {
  if (links.length === 0) return [];
  let parsed: ParsedEnvelope[];
  let first: KeySet;
  try {
    parsed = links.map((l, i) => envelopeFromJson(l, `keys[${i}]`, MAX_LINK_SIGNATURES));
    first = parseKeySet((parsed[0] as ParsedEnvelope).payload);
  } catch (cause) {
    throw new KeyChainError('a stored key set is malformed', { cause });
  }
  if (first.version !== 1) throw new KeyChainError('the chain does not start at key set 1');
  try {
    const accepted = walkKeyChain({ pinned: first.root }, parsed).accepted;
    if (accepted.length !== links.length) throw new Error('key set 1 is not signed by its root');
    return [...accepted];
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new KeyChainError(`the key chain does not verify: ${reason}`, { cause });
  }
}

const KEY_SET_REMEDY =
  'restore the file from a backup of the data directory, or from the machine that ran rotate-keys';

/** A DSSE envelope read from a file: checked structurally, kept as the exact three fields. */
export function dsseOf(text: string, what: string, remedy?: string): DsseEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(text);
    envelopeFromJson(json, what, MAX_LINK_SIGNATURES);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const then = remedy === undefined ? '' : `; ${remedy}`;
    throw new KeyChainError(`${what} is not an envelope (${reason})${then}`, { cause });
  }
  const { payloadType, payload, signatures } = json as DsseEnvelope;
  return { payloadType, payload, signatures };
}
