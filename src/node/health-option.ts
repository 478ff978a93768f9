/**
 * The health check option of the Node updater (docs/UPDATER.md §3, Health check), checked and
 * turned into the core's HealthConfig.
 */
import { join } from 'node:path';
import { UpdateError } from '#core/errors.js';
import { DEFAULT_HEALTH_TIMEOUT_MS, type HealthConfig } from '#core/health/index.js';
import { commandProbe, functionProbe, type HealthFunction } from './health-probe.js';
import type { StateDirPaths } from './store/index.js';

/**
 * The health check of new sets (docs/UPDATER.md §3, Health check): a shell command (exit 0 =
 * healthy; UPDATER_SET_PATH is the set's path), a function, or `confirm`: the consuming software
 * calls `confirm()` before the deadline or the next run reverts. `timeoutMs` defaults to 60 s
 * for a command or function, 600 s for confirm.
 */
export type NodeHealthOption =
  | { readonly mode: 'command'; readonly command: string; readonly timeoutMs?: number }
  | { readonly mode: 'function'; readonly check: HealthFunction; readonly timeoutMs?: number }
  | { readonly mode: 'confirm'; readonly timeoutMs?: number };

/** The longest deadline accepted (a week): longer is a typo, not a plan. */
const MAX_HEALTH_TIMEOUT_MS = 7 * 86_400_000;

/** The core's HealthConfig for the option; CONFIG_INVALID for a bad one. */
export function healthConfig(
  option: NodeHealthOption | undefined,
  paths: StateDirPaths,
  platform: NodeJS.Platform = process.platform,
): HealthConfig | undefined {
  if (option === undefined) return undefined;
  const kind = option.mode === 'confirm' ? 'confirm' : 'check';
  const timeoutMs = option.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS[kind];
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_HEALTH_TIMEOUT_MS) {
    throw new UpdateError('CONFIG_INVALID', 'the health timeout must be 1 ms to 7 days');
  }
  const pathOf = (dir: string): string => join(paths.sets, dir);
  switch (option.mode) {
    case 'confirm':
      return { mode: 'confirm', timeoutMs };
    case 'command':
      if (option.command.trim() === '') {
        throw new UpdateError('CONFIG_INVALID', 'the health command is empty');
      }
      return { mode: 'check', timeoutMs, probe: commandProbe(option.command, pathOf, platform) };
    case 'function':
      return { mode: 'check', timeoutMs, probe: functionProbe(option.check, pathOf) };
  }
}
