/**
 * The one shape planning accepts: a manifest whose signatures were checked (docs/ARCHITECTURE.md
 * §Glossary, "verified manifest"). Its own file so that both verifiers (verify.ts,
 * verify-format-one.ts) name it without importing each other.
 */
import type { ParsedManifest } from '#protocol/manifest.js';
import type { FreshnessFloor, TrustedKeys } from '../state.js';

declare const verifiedBrand: unique symbol;

/** What accepting a format 2 answer writes to the state (docs/PROTOCOL.md §2.7.5). */
export interface AcceptedTrust {
  readonly trust: TrustedKeys;
  readonly floor: FreshnessFloor;
}

/**
 * A manifest whose signatures were checked: a format 1 envelope under a pinned key, or a
 * format 2 release and freshness statement under the trusted key chain. Only `verifyManifest`
 * (verify-format-one.ts) and `verifyAnswer` make one (the brand cannot be forged by a cast-free
 * literal), so planning can only see checked data.
 */
export interface VerifiedManifest {
  readonly [verifiedBrand]: true;
  /**
   * 1: the single-key envelope (§2.1); 2: key chain, release and freshness (§2.7); 'tuf': TUF
   * 1.0 metadata from a trusted root (docs/PROTOCOL.md §TUF repository, "Client").
   */
  readonly format: 1 | 2 | 'tuf';
  /**
   * The manifest. Format 2: the release's version and artifacts, with `issued_at` and
   * `expires_at` of the freshness statement that vouched for it.
   */
  readonly manifest: ParsedManifest;
  /**
   * Lowercase hex SHA-256 of the signed payload bytes (the equivocation fingerprint and the
   * set id): the manifest payload (format 1) or the release digest (format 2).
   */
  readonly setId: string;
  /** keyid of the pinned key (format 1) or first release key (format 2) whose signature counted. */
  readonly keyid: string;
  /**
   * The signed bytes kept for `verify`: the envelope as received (format 1), the release
   * envelope alone as DSSE JSON (format 2; a freshness statement expires, a release does not),
   * or the targets metadata as received (TUF).
   */
  readonly envelope: Uint8Array;
  /** Format 2: the key set, retired keyids and freshness floor that acceptance records. */
  readonly trust?: AcceptedTrust;
  /**
   * TUF: the registry_version floor that still binds this run, or null: the version of the
   * installed set while the targets it came from still meet the current root's targets role
   * (tuf-floor.ts; docs/SECURITY.md, "Rollback floors under TUF").
   */
  readonly tufFloor?: string | null;
}
