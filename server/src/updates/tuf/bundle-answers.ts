/**
 * The answers of `GET /api/updates/manifest?format=tuf` (tuf-bundle.ts): the answer without a
 * nonce is kept while the files, the root version and the format 1 envelope stay the same,
 * so most requests cost one directory read; a nonce answer costs one signature and one
 * encoding.
 */
import type { DsseEnvelope } from '#protocol';
import type { KeyChainStore } from '../keys/key-chain-store.js';
import type { ReleaseStore } from '../publish/release-store.js';
import { rootNeverRotated } from './format-one-gate.js';
import { bundleAnswer, encodeBundle, type BundleAnswer, type TopMetadata } from './tuf-bundle.js';
import type { TufRepository } from './tuf-repository.js';

interface Held {
  readonly files: TopMetadata['files'];
  readonly rootVersion: number;
  readonly legacy: Buffer | undefined;
  readonly answer: BundleAnswer;
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
    const legacy = this.#legacyBytes();
    if (nonce !== undefined) return bundleAnswer(encodeBundle(top, legacyOf(legacy)));
    const held = this.#held;
    if (
      held?.files === top.files &&
      held.rootVersion === top.rootVersion &&
      held.legacy === legacy
    ) {
      return held.answer;
    }
    const answer = bundleAnswer(encodeBundle(top, legacyOf(legacy)));
    this.#held = { files: top.files, rootVersion: top.rootVersion, legacy, answer };
    return answer;
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
