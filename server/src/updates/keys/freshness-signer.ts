/**
 * The server's freshness statements (docs/PROTOCOL.md §2.7.3, §2.7.8): one current statement
 * over the current release and key set, replaced once half of its lifetime is gone on the
 * injected clock, with a sequence that only grows and is written to `freshness.json` before a
 * statement carrying it is served; and a statement per nonce request, signed on the spot.
 */
import { join } from 'node:path';
import {
  encodeFreshness,
  FRESHNESS_PAYLOAD_TYPE,
  signDsse,
  type DsseEnvelope,
  type FreshnessStatement,
  type Signer,
} from '#protocol';
import { writeJsonAtomic } from '#shared/atomic-file.js';
import { fieldOf, readStateJson, stateFileError } from '../../platform/state-file.js';

export const FRESHNESS_FILE = 'freshness.json';
export const DEFAULT_FRESHNESS_LIFETIME_S = 24 * 3600;
export const MIN_FRESHNESS_LIFETIME_S = 60;
export const MAX_FRESHNESS_LIFETIME_S = 365 * 24 * 3600;

/** What a statement vouches for. */
export interface FreshnessTarget {
  readonly releaseSha256: string;
  readonly keysVersion: number;
}

/** A signed statement, with the envelope JSON kept as the bytes that go into answers. */
export interface SignedStatement {
  readonly statement: FreshnessStatement;
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
  readonly envelope: DsseEnvelope;
  readonly json: Buffer;
}

export class FreshnessSigner {
  #sequence: number;
  #signers: readonly Signer[];
  #current: (SignedStatement & { target: FreshnessTarget }) | undefined;
  #renewing: Promise<SignedStatement> | undefined;

  private constructor(
    private readonly file: string,
    signers: readonly Signer[],
    private readonly now: () => number,
    private readonly lifetimeMs: number,
    sequence: number,
  ) {
    this.#signers = signers;
    this.#sequence = sequence;
  }

  /** Opens the signer over `<dataDir>/freshness.json` (a missing file starts at sequence 0). */
  static async open(
    dataDir: string,
    signers: readonly Signer[],
    now: () => number,
    lifetimeS: number = DEFAULT_FRESHNESS_LIFETIME_S,
  ): Promise<FreshnessSigner> {
    const file = join(dataDir, FRESHNESS_FILE);
    return new FreshnessSigner(file, signers, now, lifetimeS * 1000, await readSequence(file));
  }

  /** The highest sequence ever signed here. */
  get sequence(): number {
    return this.#sequence;
  }

  /** New freshness keys (a rotation): the next statement is signed by them. */
  setSigners(signers: readonly Signer[]): void {
    this.#signers = signers;
    this.#current = undefined;
  }

  /**
   * The statement to serve for `target` now: the current one while it is over the same target
   * and has at least half of its lifetime left, else a new one (sequence + 1, persisted first).
   * Concurrent callers share one renewal.
   */
  async current(target: FreshnessTarget): Promise<SignedStatement> {
    const held = this.#current;
    if (held !== undefined && this.#fits(held, target)) return held;
    this.#renewing ??= this.#renew(target).finally(() => {
      this.#renewing = undefined;
    });
    const renewed = await this.#renewing;
    // A renewal for another target (a publish raced a request) is not ours: go again.
    return this.#current !== undefined && this.#fits(this.#current, target)
      ? renewed
      : this.current(target);
  }

  /** The current statement without waiting, if it is still servable (the fast path). */
  peek(target: FreshnessTarget): SignedStatement | undefined {
    const held = this.#current;
    return held !== undefined && this.#fits(held, target) ? held : undefined;
  }

  /**
   * A statement bound to one request (§2.7.6): the current statement's target, sequence and
   * expiry, issued now, with the client's nonce. Call after `current()`.
   */
  withNonce(base: SignedStatement, nonce: string): Buffer {
    const statement: FreshnessStatement = {
      ...base.statement,
      issued_at: new Date(this.now()).toISOString(),
      nonce,
    };
    return this.#sign(statement).json;
  }

  #fits(held: SignedStatement & { target: FreshnessTarget }, target: FreshnessTarget): boolean {
    const now = this.now();
    return (
      held.target.releaseSha256 === target.releaseSha256 &&
      held.target.keysVersion === target.keysVersion &&
      // A dev reset moves the clock back: a statement issued "later" is replaced too.
      now >= held.issuedAtMs &&
      now < held.issuedAtMs + this.lifetimeMs / 2
    );
  }

  async #renew(target: FreshnessTarget): Promise<SignedStatement> {
    // The publish CLI may have signed on this data directory meanwhile: go above both.
    const sequence = Math.max(this.#sequence, await readSequence(this.file)) + 1;
    // Durable before served: a crash can skip a sequence number, never repeat one.
    await writeJsonAtomic(this.file, { sequence });
    this.#sequence = sequence;
    const issuedAtMs = this.now();
    const signed = this.#sign({
      release_sha256: target.releaseSha256,
      keys_version: target.keysVersion,
      sequence,
      issued_at: new Date(issuedAtMs).toISOString(),
      expires_at: new Date(issuedAtMs + this.lifetimeMs).toISOString(),
    });
    const current = { ...signed, target };
    this.#current = current;
    return current;
  }

  #sign(statement: FreshnessStatement): SignedStatement {
    const envelope = signDsse(encodeFreshness(statement), FRESHNESS_PAYLOAD_TYPE, this.#signers);
    return {
      statement,
      issuedAtMs: Date.parse(statement.issued_at),
      expiresAtMs: Date.parse(statement.expires_at),
      envelope,
      json: Buffer.from(JSON.stringify(envelope)),
    };
  }
}

async function readSequence(file: string): Promise<number> {
  const remedy =
    'restore it from a backup, or write {"sequence": N} with N at least the highest sequence clients have seen (a lower one is refused by them as a rollback)';
  const parsed = await readStateJson(file, remedy);
  if (parsed === undefined) return 0;
  const sequence = fieldOf(parsed, 'sequence');
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 0) {
    throw stateFileError(file, 'does not hold {"sequence": <integer 0 or more>}', remedy);
  }
  return sequence;
}
