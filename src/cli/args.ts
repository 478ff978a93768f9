/**
 * Command-line parsing for `npm run updater` (docs/UPDATER.md §CLI). Strict: an unknown flag,
 * a missing value or a malformed number is a usage error (exit 2, CONFIG_INVALID).
 */
import { parseArgs } from 'node:util';
import { unknownOptionMessage } from '#shared/closest-option.js';
import { UpdateError } from '#core/errors.js';
import type { Limits } from '#core/limits.js';
import { CLI_OPTIONS, COMMANDS, LIMIT_FLAGS, type Command } from './arg-options.js';
import { machineKeyOf } from './machine-key-file.js';
import { isSwapStrategy, type SwapStrategy } from '#node/store/index.js';
import type { NodeHealthOption } from '#node/create-updater.js';

export { COMMANDS, LIMIT_FLAGS, type Command } from './arg-options.js';

export interface CliOptions {
  readonly command: Command;
  readonly baseUrl: string;
  readonly machineKey: string;
  readonly pubkeys: readonly string[];
  readonly dir: string;
  readonly json: boolean;
  /** `--require-nonce`: nonce every manifest request (docs/PROTOCOL.md §2.7.5). */
  readonly requireNonce: boolean;
  readonly limits: Partial<Limits>;
  /** --swap: force a swap strategy (default: the platform's). */
  readonly swap?: SwapStrategy;
  /** --health-cmd / --health confirm, with --health-timeout-s. */
  readonly health?: NodeHealthOption;
  /** `--no-proxy`: ignore the proxy variables for this run (docs/UPDATER.md §7, Proxy). */
  readonly noProxy: boolean;
  /** `--trusted-root FILE`: the TUF root trust starts from (docs/PROTOCOL.md §TUF repository). */
  readonly trustedRoot?: string;
  /** `--max-timestamp-lifetime-s N`: the TUF client's freeze bound (default 7 days). */
  readonly maxTimestampLifetimeS?: number;
}

export const USAGE = `usage: npm run updater -- <check|update|status|rollback|verify|confirm>
  --dir DIR (--trusted-root FILE | --pubkey HEX [--pubkey HEX ...]) [--json]
  --trusted-root FILE   the TUF root.json trust starts from; copied into DIR on the first
                        run, later runs use the stored (and rotated) root
  --max-timestamp-lifetime-s N   refuse a TUF timestamp expiring more than N s ahead (604800)
  --base-url URL --machine-key-file PATH   (check, update; or env UPDATER_MACHINE_KEY;
          --machine-key KEY also works but shows the key in ps and shell history)
  --require-nonce   send a fresh nonce with every manifest (or TUF timestamp) request and
                    accept only an answer signed for it (NONCE_MISMATCH otherwise)
  --swap symlink|pointer   how DIR's live set is switched (default: symlink, pointer on Windows)
  --health-cmd "CMD"       after an update, run CMD (UPDATER_SET_PATH = the new set); a failure
                           reverts to the previous set and never installs that version again
  --health confirm         instead: the software must run \`confirm\` before the deadline, or
                           the next run reverts
  --health-timeout-s N     the check's deadline (60), or confirm's (600)
  --no-proxy        ignore https_proxy / HTTPS_PROXY, http_proxy, ALL_PROXY and NO_PROXY for
                    this run (by default check and update follow them, as curl does)
  limits (defaults): --parallel N (4) --retries N (3) --stall-timeout-ms N (30000)
          --min-bytes-per-s N (1024) --max-artifact-bytes N (4 GiB) --max-artifacts N (10000)
          --max-manifest-bytes N (8 MiB; unset, max(8 MiB, 512 B x max-artifacts + 3 MiB))
          --connect-timeout-ms N (10000) --max-bytes-per-s N (bandwidth cap, 0 = none)`;

function usage(message: string): never {
  throw new UpdateError('CONFIG_INVALID', message);
}

/** The flags and the one command, or CONFIG_INVALID naming the nearest known option. */
function readArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: CLI_OPTIONS,
    });
  } catch (error) {
    // The options it knows are those its usage lists: a typo is answered with the nearest.
    const near = unknownOptionMessage(error, USAGE.match(/--[a-z][a-z-]*/g) ?? []);
    return usage(near ?? (error instanceof Error ? error.message : 'bad arguments'));
  }
}

/** The limit flags given, as a partial Limits; each must be a non-negative integer. */
function limitsOf(values: Readonly<Record<string, unknown>>): Record<string, number> {
  const limits: Record<string, number> = {};
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    if (typeof raw !== 'string' || !/^\d{1,16}$/.test(raw)) {
      usage(`--${flag} must be a non-negative integer`);
    }
    limits[key] = Number(raw);
  }
  return limits;
}

/** Parses argv (without node and script) plus the environment the entry point passes in. */
export function parseCli(argv: readonly string[], envMachineKey: string | undefined): CliOptions {
  const { values, positionals } = readArgs(argv);
  if (positionals.length !== 1) usage('exactly one command is required');
  const command = positionals[0] as Command;
  if (!COMMANDS.includes(command)) usage(`unknown command ${positionals[0]}`);
  const dir = values.dir;
  if (typeof dir !== 'string' || dir === '') usage('--dir is required');
  const pubkeys = values.pubkey ?? [];
  const trustedRoot = values['trusted-root'];
  if (trustedRoot === '') usage('--trusted-root is empty');
  if (pubkeys.length === 0 && trustedRoot === undefined) {
    usage('--trusted-root FILE or at least one --pubkey is required');
  }
  const lifetime = values['max-timestamp-lifetime-s'];
  if (lifetime !== undefined && (!/^\d{1,10}$/.test(lifetime) || Number(lifetime) < 1)) {
    usage('--max-timestamp-lifetime-s must be a positive integer');
  }
  const network = command === 'check' || command === 'update';
  const baseUrl = typeof values['base-url'] === 'string' ? values['base-url'] : '';
  const machineKey = machineKeyOf(values['machine-key'], values['machine-key-file'], envMachineKey);
  if (network && baseUrl === '') usage('--base-url is required');
  if (network && machineKey === '') {
    usage('a machine key is required: --machine-key-file PATH or env UPDATER_MACHINE_KEY');
  }
  const swap = values.swap;
  if (swap !== undefined && !isSwapStrategy(swap)) usage('--swap must be symlink or pointer');
  const health = healthOption(values);
  return {
    command,
    baseUrl,
    machineKey,
    pubkeys,
    dir,
    json: values.json === true,
    requireNonce: values['require-nonce'] === true,
    limits: limitsOf(values),
    noProxy: values['no-proxy'] === true,
    ...(trustedRoot === undefined ? {} : { trustedRoot }),
    ...(lifetime === undefined ? {} : { maxTimestampLifetimeS: Number(lifetime) }),
    ...(swap === undefined ? {} : { swap }),
    ...(health === undefined ? {} : { health }),
  };
}

/** --health-cmd "CMD" | --health command|confirm, and --health-timeout-s N. */
function healthOption(values: {
  health?: string | undefined;
  'health-cmd'?: string | undefined;
  'health-timeout-s'?: string | undefined;
}): NodeHealthOption | undefined {
  const mode = values.health;
  const command = values['health-cmd'];
  const rawTimeout = values['health-timeout-s'];
  if (mode !== undefined && mode !== 'command' && mode !== 'confirm') {
    usage('--health must be command or confirm');
  }
  if (mode === 'confirm' && command !== undefined) {
    usage('--health confirm and --health-cmd exclude each other');
  }
  if (mode === 'command' && command === undefined) usage('--health command needs --health-cmd');
  if (command !== undefined && command.trim() === '') usage('--health-cmd is empty');
  let timeoutMs: number | undefined;
  if (rawTimeout !== undefined) {
    if (!/^\d{1,7}$/.test(rawTimeout) || Number(rawTimeout) < 1) {
      usage('--health-timeout-s must be a positive integer');
    }
    if (mode === undefined && command === undefined) {
      usage('--health-timeout-s needs --health-cmd or --health confirm');
    }
    timeoutMs = Number(rawTimeout) * 1000;
  }
  const timeout = timeoutMs === undefined ? {} : { timeoutMs };
  if (mode === 'confirm') return { mode: 'confirm', ...timeout };
  if (command !== undefined) return { mode: 'command', command, ...timeout };
  return undefined;
}
