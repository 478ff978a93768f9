/**
 * TUF spec §5.6.7: the search for a target path through the delegation graph: pre-order
 * depth-first from top-level targets, children in the order their delegator lists them, a
 * terminating delegation ending the search below it, each role visited once, at most
 * `maxDelegations` roles. `findTarget` loads roles as it goes; `findLoadedTarget` runs the
 * same search over roles a release walk already loaded and checked (release-walk.ts).
 */
import { TufError, type Envelope, type TargetFile, type Targets } from '#protocol/tuf/index.js';
import { rolesForTarget } from './delegation-match.js';
import { loadTargets, type WorkflowContext } from './load-metadata.js';

interface PendingRole {
  readonly role: string;
  readonly delegator: string;
}

/** Pushes the roles `metadata` delegates `targetPath` to, so the first listed pops first. */
function pushChildren(
  stack: PendingRole[],
  metadata: Envelope<Targets>,
  role: string,
  targetPath: string,
): void {
  const delegations = metadata.signed.delegations;
  if (delegations === undefined) return;
  const children: PendingRole[] = [];
  for (const step of rolesForTarget(delegations, targetPath)) {
    children.push({ role: step.name, delegator: role });
    if (step.terminating) {
      // TUF spec §5.6.7.2.1: nothing after a terminating delegation is searched.
      stack.length = 0;
      break;
    }
  }
  stack.push(...children.reverse());
}

function tooManyDelegations(targetPath: string, maxDelegations: number): TufError {
  return new TufError(
    'TOO_MANY_DELEGATIONS',
    `searched ${maxDelegations} roles for ${targetPath}`,
    {
      target: targetPath,
      max_delegations: maxDelegations,
    },
  );
}

/** The target's info from the first role in search order that lists it, else undefined. */
export async function findTarget(
  ctx: WorkflowContext,
  targetPath: string,
): Promise<TargetFile | undefined> {
  const visited = new Set<string>();
  const stack: PendingRole[] = [{ role: 'targets', delegator: 'root' }];
  let budget = ctx.config.maxDelegations;
  while (budget > 0) {
    const next = stack.pop();
    if (next === undefined) return undefined;
    if (visited.has(next.role)) continue;
    const metadata = await loadTargets(ctx, next.role, next.delegator);
    const target = metadata.signed.targets.get(targetPath);
    if (target !== undefined) return target;
    visited.add(next.role);
    budget -= 1;
    pushChildren(stack, metadata, next.role, targetPath);
  }
  if (stack.length === 0) return undefined;
  throw tooManyDelegations(targetPath, ctx.config.maxDelegations);
}

/**
 * The same search over `roles`, every one of them already trusted through every delegation
 * that names it: no loading, no signature check. A role the search needs and `roles` lacks
 * is a caller's fault (WRONG_ORDER).
 */
export function findLoadedTarget(
  roles: ReadonlyMap<string, Envelope<Targets>>,
  targetPath: string,
  maxDelegations: number,
): TargetFile | undefined {
  const visited = new Set<string>();
  const stack: PendingRole[] = [{ role: 'targets', delegator: 'root' }];
  let budget = maxDelegations;
  while (budget > 0) {
    const next = stack.pop();
    if (next === undefined) return undefined;
    if (visited.has(next.role)) continue;
    const metadata = roles.get(next.role);
    if (metadata === undefined) {
      throw new TufError('WRONG_ORDER', `${next.role} was searched before it was loaded`);
    }
    const target = metadata.signed.targets.get(targetPath);
    if (target !== undefined) return target;
    visited.add(next.role);
    budget -= 1;
    pushChildren(stack, metadata, next.role, targetPath);
  }
  if (stack.length === 0) return undefined;
  throw tooManyDelegations(targetPath, maxDelegations);
}
