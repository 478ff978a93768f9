/**
 * The targets of a release when roles delegate (docs/PROTOCOL.md §TUF repository, "Delegated
 * targets in a release"). Every role reachable from top-level targets is loaded, pre-order
 * depth-first as TUF spec §5.6.7 searches, and checked against the keys of EVERY delegator
 * that names it (trust in a role is per delegation, never inherited); at most
 * `maxReleaseRoles` roles. A path is then in the release with the entry the §5.6.7 search
 * for that very path returns over those roles: the first role in search order wins, a
 * terminating delegation hides the roles after it, and a path a role lists outside the
 * patterns its delegator gave it is not in the release (no search asks that role for it).
 */
import { TufError, type Envelope, type TargetFile, type Targets } from '#protocol/tuf/index.js';
import type { TufClientConfig } from './config.js';
import { succinctRoleName } from './delegation-match.js';
import { findLoadedTarget } from './target-search.js';

/** Loads `role` as `delegator` allows it, checking its signatures against that delegator. */
export type RoleLoader = (role: string, delegator: string) => Promise<Envelope<Targets>>;

export interface ReleaseRole {
  readonly name: string;
  readonly envelope: Envelope<Targets>;
}

/** The roles a release was formed from (top-level targets first) and its target files. */
export interface TrustedRelease {
  readonly roles: readonly ReleaseRole[];
  readonly files: readonly TargetFile[];
}

export type ReleaseLimits = Pick<TufClientConfig, 'maxDelegations' | 'maxReleaseRoles'>;

interface PendingRole {
  readonly role: string;
  readonly delegator: string;
}

/** Walks the delegation graph from top-level targets with `load`; see the file comment. */
export async function walkRelease(
  load: RoleLoader,
  limits: ReleaseLimits,
): Promise<TrustedRelease> {
  const roles = new Map<string, Envelope<Targets>>();
  const stack: PendingRole[] = [{ role: 'targets', delegator: 'root' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    // Loaded (and so checked) on every delegation that names it, expanded once.
    const envelope = await load(next.role, next.delegator);
    if (roles.has(next.role)) continue;
    if (roles.size >= limits.maxReleaseRoles) throw tooManyRoles(limits.maxReleaseRoles);
    roles.set(next.role, envelope);
    const children = delegatedNames(envelope.signed, limits.maxReleaseRoles);
    for (let i = children.length - 1; i >= 0; i -= 1) {
      stack.push({ role: children[i] as string, delegator: next.role });
    }
  }
  const list = [...roles].map(([name, env]) => ({ name, envelope: env }));
  return { roles: list, files: releaseFiles(roles, limits.maxDelegations) };
}

/** The roles `targets` delegates to, in the order it lists them. */
function delegatedNames(targets: Targets, maxRoles: number): string[] {
  const delegations = targets.delegations;
  if (delegations === undefined) return [];
  if (delegations.roles !== undefined) return delegations.roles.map((role) => role.name);
  const succinct = delegations.succinctRoles;
  if (succinct === undefined) return [];
  const bins = 2 ** succinct.bitLength;
  // Checked before the names are made: a bit_length of 32 would name four billion bins.
  if (bins >= maxRoles) throw tooManyRoles(maxRoles);
  return Array.from({ length: bins }, (_, bin) => succinctRoleName(succinct, bin));
}

/** Each path any role lists, with the entry its own §5.6.7 search finds, once. */
function releaseFiles(
  roles: ReadonlyMap<string, Envelope<Targets>>,
  maxDelegations: number,
): TargetFile[] {
  const top = roles.get('targets');
  if (top === undefined) return [];
  // No delegation: the top-level list is the release (the common case, and the fast one).
  if (roles.size === 1) return [...top.signed.targets.values()];
  const seen = new Set<string>();
  const files: TargetFile[] = [];
  for (const metadata of roles.values()) {
    for (const path of metadata.signed.targets.keys()) {
      if (seen.has(path)) continue;
      seen.add(path);
      const found = findLoadedTarget(roles, path, maxDelegations);
      if (found !== undefined) files.push(found);
    }
  }
  return files;
}

function tooManyRoles(maxReleaseRoles: number): TufError {
  return new TufError(
    'TOO_MANY_DELEGATIONS',
    `a release may gather at most ${maxReleaseRoles} targets roles`,
    { max_release_roles: maxReleaseRoles },
  );
}
