/**
 * The answers of `GET /api/updates/manifest?format=tuf` (tuf-bundle.ts): the frame is kept
 * while the snapshot, targets, root version and format 1 envelope stay the same, and the
 * answer without a nonce while its timestamp does too, so most requests cost one directory
 * read; a nonce answer costs one signature and the encoding of one timestamp.
 */
import type { DsseEnvelope } from '#protocol';
import type { KeyChainStore } from '../keys/key-chain-store.js';
import type { ReleaseStore } from '../publish/release-store.js';
import { rootNeverRotated } from './format-one-gate.js';
import {
  bundleAnswer,
  bundleFrame,
  type BundleAnswer,
  type BundleFrame,
  type TopMetadata,
} from './tuf-bundle.js';
import type { TufRepository } from './tuf-repository.js';

interface Held {
  /** The files but the timestamp, the root version and the format 1 bytes it was made of. */
  readonly under: readonly Uint8Array[];
  readonly rootVersion: number;
  readonly legacy: Buffer | undefined;
  readonly frame: BundleFrame;
  /** The answer without a nonce, by the timestamp it carries. */
  plain?: { readonly timestamp: Uint8Array; readonly answer: BundleAnswer };
}

export class BundleAnswers {
  #held: Held | undefined;

  constructor(
    private readonly repository: TufRepository,
    private readonly chain: () => KeyChainStore,
    private readonly releases: ReleaseStore,
  ) {}

  /** The bundle for a request with or without a nonce; undefined when there is no repository. */
  async answerFor(nonce: string | undefined): Promise<BundleAnswer | undefined> {
    const top = await this.repository.top(nonce);
    if (top === undefined) return undefined;
    const [first, ...rest] = top.files;
    if (first === undefined) return undefined;
    const held = this.#frameFor(
      top,
      rest.map(([, bytes]) => bytes),
    );
    const timestamp = first[1];
    if (nonce !== undefined) return bundleAnswer(held.frame, timestamp);
    if (held.plain?.timestamp !== timestamp) {
      held.plain = { timestamp, answer: bundleAnswer(held.frame, timestamp) };
    }
    return held.plain.answer;
  }

  #frameFor(top: TopMetadata, under: readonly Uint8Array[]): Held {
    const legacy = this.#legacyBytes();
    const held = this.#held;
    if (
      held?.rootVersion === top.rootVersion &&
      held.legacy === legacy &&
      held.under.length === under.length &&
      held.under.every((bytes, i) => bytes === under[i])
    ) {
      return held;
    }
    this.#held = {
      under,
      rootVersion: top.rootVersion,
      legacy,
      frame: bundleFrame(top, legacyOf(legacy)),
    };
    return this.#held;
  }

  /** The format 1 envelope's bytes while the root never rotated (format-one-gate.ts). */
  #legacyBytes(): Buffer | undefined {
    const chain = this.chain();
    if (!rootNeverRotated(chain.first, chain.newest)) return undefined;
    return this.releases.current?.legacy;
  }
}

function legacyOf(bytes: Buffer | undefined): DsseEnvelope | undefined {
  if (bytes === undefined) return undefined;
  const { payloadType, payload, signatures } = JSON.parse(bytes.toString('utf8')) as DsseEnvelope;
  return { payloadType, payload, signatures };
}
