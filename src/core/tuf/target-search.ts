/**
 * TUF spec §5.6.7: the search for a target path through the delegation graph: pre-order
 * depth-first from top-level targets, children in the order their delegator lists them, a
 * terminating delegation ending the search below it, each role visited once, at most
 * `maxDelegations` roles.
 */
import { TufError, type TargetFile } from '#protocol/tuf/index.js';
import { rolesForTarget } from './delegation-match.js';
import { loadTargets, type WorkflowContext } from './load-metadata.js';

interface PendingRole {
  readonly role: string;
  readonly delegator: string;
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
    const delegations = metadata.signed.delegations;
    if (delegations === undefined) continue;
    const children: PendingRole[] = [];
    for (const step of rolesForTarget(delegations, targetPath)) {
      children.push({ role: step.name, delegator: next.role });
      if (step.terminating) {
        // TUF spec §5.6.7.2.1: nothing after a terminating delegation is searched.
        stack.length = 0;
        break;
      }
    }
    stack.push(...children.reverse());
  }
  if (stack.length === 0) return undefined;
  throw new TufError(
    'TOO_MANY_DELEGATIONS',
    `searched ${ctx.config.maxDelegations} roles for ${targetPath}`,
    {
      target: targetPath,
      max_delegations: ctx.config.maxDelegations,
    },
  );
}
