/**
 * Which delegated roles a target path belongs to (TUF spec §4.5 "paths" and
 * "path_hash_prefixes", TAP 15 succinct hash bins), and which keys sign a delegated role.
 */
import {
  TufError,
  requireThreshold,
  sha256Hex,
  type Delegations,
  type Envelope,
  type RoleKeys,
  type SuccinctRoles,
  type Targets,
} from '#protocol/tuf/index.js';
import { fnmatchSegment } from './fnmatch.js';

export interface DelegationStep {
  readonly name: string;
  readonly terminating: boolean;
}

/** The delegated roles trusted for `targetPath`, in the order the delegator lists them. */
export function rolesForTarget(delegations: Delegations, targetPath: string): DelegationStep[] {
  if (delegations.roles !== undefined) {
    return delegations.roles
      .filter((role) =>
        role.pathHashPrefixes !== undefined
          ? hashPrefixMatches(role.pathHashPrefixes, targetPath)
          : (role.paths ?? []).some((pattern) => matchesPathPattern(targetPath, pattern)),
      )
      .map((role) => ({ name: role.name, terminating: role.terminating }));
  }
  if (delegations.succinctRoles !== undefined) {
    // TAP 15: exactly one bin is responsible for a path, and bins are terminating.
    return [{ name: succinctRoleFor(delegations.succinctRoles, targetPath), terminating: true }];
  }
  return [];
}

/** The keys and threshold `delegations` gives `roleName`, or undefined if it does not. */
export function delegatedRoleKeys(
  delegations: Delegations,
  roleName: string,
): RoleKeys | undefined {
  if (delegations.roles !== undefined) {
    return delegations.roles.find((role) => role.name === roleName);
  }
  const succinct = delegations.succinctRoles;
  if (succinct !== undefined && isSuccinctRoleName(succinct, roleName)) return succinct;
  return undefined;
}

/**
 * Throws unless `envelope` meets the threshold `delegations` (of `delegator`) gives `role`:
 * NOT_DELEGATED when they do not name it, THRESHOLD_NOT_MET when too few of its keys signed.
 */
export function requireSignedByDelegations(
  envelope: Envelope<Targets>,
  role: string,
  delegator: string,
  delegations: Delegations,
): void {
  const keys = delegatedRoleKeys(delegations, role);
  if (keys === undefined) {
    throw new TufError('NOT_DELEGATED', `${delegator} does not delegate to ${role}`, {
      role,
      delegator,
    });
  }
  requireThreshold(envelope, delegations.keys, keys, role);
}

/**
 * TUF spec §4.5 "paths": shell-style patterns where `*` does not cross a `/`: the path and the
 * pattern must have as many segments, and each segment must match its pattern segment.
 */
export function matchesPathPattern(targetPath: string, pattern: string): boolean {
  const targetParts = targetPath.split('/');
  const patternParts = pattern.split('/');
  if (targetParts.length !== patternParts.length) return false;
  return targetParts.every((part, i) => fnmatchSegment(part, patternParts[i] ?? ''));
}

function hashPrefixMatches(prefixes: readonly string[], targetPath: string): boolean {
  const digest = sha256Hex(targetPath);
  return prefixes.some((prefix) => digest.startsWith(prefix));
}

function suffixLength(succinct: SuccinctRoles): number {
  return (2 ** succinct.bitLength - 1).toString(16).length;
}

/** TAP 15: the bin is the first `bit_length` bits of SHA-256(path), in zero-padded hex. */
export function succinctRoleFor(succinct: SuccinctRoles, targetPath: string): string {
  const firstFour = parseInt(sha256Hex(targetPath).slice(0, 8), 16);
  return succinctRoleName(succinct, Math.floor(firstFour / 2 ** (32 - succinct.bitLength)));
}

/** TAP 15: the name of bin number `bin` (0 to 2^bit_length - 1). */
export function succinctRoleName(succinct: SuccinctRoles, bin: number): string {
  return `${succinct.namePrefix}-${bin.toString(16).padStart(suffixLength(succinct), '0')}`;
}

export function isSuccinctRoleName(succinct: SuccinctRoles, name: string): boolean {
  const prefix = `${succinct.namePrefix}-`;
  if (!name.startsWith(prefix)) return false;
  const suffix = name.slice(prefix.length);
  if (suffix.length !== suffixLength(succinct) || !/^[0-9a-f]+$/.test(suffix)) return false;
  return parseInt(suffix, 16) < 2 ** succinct.bitLength;
}
