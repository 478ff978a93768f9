/**
 * The bytes of GET /api/updates/manifest (docs/PROTOCOL.md §2.7.6): the frame (key set links,
 * release, format 1 envelope) is built once per release and key set, the freshness envelope
 * goes in the middle. The answer for the current statement is kept whole, so most requests
 * cost a lookup; a nonce request costs one signature and one concatenation. The gzip coding
 * (§2.7.6, Content coding) is built the same way: the frame's head is deflated once
 * (gzip-frame.ts), an answer's gzip bytes are made on first asking and kept with the answer.
 */
import { answerFrame, encodeKeysAnswer, type DsseEnvelope } from '#protocol';
import type { FreshnessSigner, FreshnessTarget, SignedStatement } from './keys/freshness-signer.js';
import { HttpError } from '../http/http-error.js';
import { GzipFrame } from './gzip-frame.js';
import type { KeyChainStore } from './keys/key-chain-store.js';
import type { Release, ReleaseStore } from './publish/release-store.js';
import { rootNeverRotated } from './tuf/format-one-gate.js';

/**
 * zlib level of the gzip answer (bench/manifest-gzip.ts, docs/PROTOCOL.md §2.7.6, Content
 * coding): the frame's head is deflated once per release and key set, so the level's time is
 * paid once, not per request, and 9 was the smallest for about the time of 6.
 */
export const GZIP_LEVEL = 9;

/** How many times an answer is paired again after the state changed under it (#paired). */
export const PAIRING_TURNS = 8;

/** An answer's bytes around its one changing part: `head + middle + tail`. */
export interface AnswerFrame {
  readonly head: Buffer;
  readonly tail: Buffer;
  /** The head deflated, made when a gzip answer is first asked for. */
  gzip?: GzipFrame;
}

interface Frame extends AnswerFrame {
  readonly release: Release;
  readonly keysVersion: number;
}

/**
 * One answer: its length, its bytes and the same bytes gzip-coded, each form made on first
 * call and then kept (a gzip nonce answer never joins the identity bytes: megabytes at 10,000
 * artifacts).
 */
export interface ManifestAnswer {
  readonly length: number;
  bytes(): Buffer;
  gzip(): Buffer;
}

/**
 * An answer over `frame` with `middle` in it (the freshness envelope here; the TUF bundle's
 * timestamp in tuf-bundle.ts): the head is deflated once per frame, the rest per answer.
 */
export function answerOf(frame: AnswerFrame, middle: Uint8Array): ManifestAnswer {
  let bytes: Buffer | undefined;
  let coded: Buffer | undefined;
  return {
    length: frame.head.length + middle.length + frame.tail.length,
    bytes: () => (bytes ??= Buffer.concat([frame.head, middle, frame.tail])),
    gzip: () => {
      frame.gzip ??= new GzipFrame(frame.head, GZIP_LEVEL);
      coded ??= frame.gzip.code(Buffer.concat([middle, frame.tail]));
      return coded;
    },
  };
}

export class ManifestAnswers {
  #frame: Frame | undefined;
  #answer: { statement: SignedStatement; frame: Frame; answer: ManifestAnswer } | undefined;
  #keys: { links: readonly DsseEnvelope[]; bytes: Buffer } | undefined;

  constructor(
    private readonly chain: () => KeyChainStore,
    private readonly releases: ReleaseStore,
    private readonly freshness: FreshnessSigner,
  ) {}

  /** What the current statement must name, or undefined when nothing is published. */
  target(): FreshnessTarget | undefined {
    const release = this.releases.current;
    const keys = this.chain().newest;
    if (release === undefined || keys === undefined) return undefined;
    return { releaseSha256: release.digest, keysVersion: keys.version };
  }

  /** The statement for the current release, signed anew when due (sequence persisted first). */
  async statement(): Promise<SignedStatement | undefined> {
    const target = this.target();
    if (target === undefined) return undefined;
    return this.freshness.peek(target) ?? (await this.freshness.current(target));
  }

  /**
   * The answer to a request with or without a nonce, with its gzip coding at hand; undefined
   * when nothing is published. Without a nonce it is kept until the statement or the frame
   * changes, its gzip bytes with it.
   */
  async answerFor(nonce: string | undefined): Promise<ManifestAnswer | undefined> {
    const paired = await this.#paired();
    if (paired === undefined) return undefined;
    const { statement, frame } = paired;
    if (nonce !== undefined) return answerOf(frame, this.freshness.withNonce(statement, nonce));
    const held = this.#answer;
    if (held !== undefined && held.statement === statement && held.frame === frame) {
      return held.answer;
    }
    const answer = answerOf(frame, statement.json);
    this.#answer = { statement, frame, answer };
    return answer;
  }

  /**
   * The statement and the frame it names. A rotation (reloadKeys) or a publish can land while
   * the statement is renewed (an awaited write of the sequence), and a statement over the old
   * key set or release in the new frame is an answer no client accepts (FRESHNESS_MISMATCH,
   * docs/PROTOCOL.md §2.7.5): the frame is read after the await and the pair is made again
   * until both name the same target. Each turn needs another change inside one renewal, so a
   * bounded number of turns settles; past it the client is told to come back (503).
   */
  async #paired(): Promise<{ statement: SignedStatement; frame: Frame } | undefined> {
    for (let turn = 0; turn < PAIRING_TURNS; turn++) {
      const statement = await this.statement();
      const frame = this.#frameNow();
      if (statement === undefined || frame === undefined) return undefined;
      const named = statement.statement;
      if (
        named.keys_version === frame.keysVersion &&
        named.release_sha256 === frame.release.digest
      ) {
        return { statement, frame };
      }
    }
    throw new HttpError(503, 'RELEASE_CHANGING', 'the release or key set is changing, try again', {
      headers: { 'retry-after': '1' },
    });
  }

  /** GET /api/updates/keys: the whole chain, kept until it grows. */
  keysAnswer(): Buffer {
    const links = this.chain().links;
    if (this.#keys?.links !== links) {
      this.#keys = { links, bytes: Buffer.from(encodeKeysAnswer(links)) };
    }
    return this.#keys.bytes;
  }

  #frameNow(): Frame | undefined {
    const release = this.releases.current;
    const chain = this.chain();
    const keysVersion = chain.newest?.version;
    if (release === undefined || keysVersion === undefined) return undefined;
    const held = this.#frame;
    if (held?.release === release && held.keysVersion === keysVersion) return held;
    const { head, tail } = answerFrame({
      keys: chain.answerLinks,
      release: release.envelope,
      // Format 1 only while the root never rotated (docs/PROTOCOL.md §TUF repository).
      ...(release.legacy === undefined || !rootNeverRotated(chain.first, chain.newest)
        ? {}
        : { legacy: legacyOf(release.legacy) }),
    });
    const frame = { release, keysVersion, head: Buffer.from(head), tail: Buffer.from(tail) };
    this.#frame = frame;
    return frame;
  }
}

function legacyOf(bytes: Buffer): DsseEnvelope {
  const { payloadType, payload, signatures } = JSON.parse(bytes.toString('utf8')) as DsseEnvelope;
  return { payloadType, payload, signatures };
}
