/**
 * Flags of `updater serve` (docs/UPDATER.md §serve). Strict like the other commands: an
 * unknown flag, a missing value or a malformed number is a usage error (exit 2,
 * CONFIG_INVALID).
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UpdateError } from '#core/errors.js';
import { MIN_CHECK_INTERVAL_MS } from '#app/settings/settings.js';
import type { SocketLimits } from '#shared/socket-limits.js';
import { machineKeyOf } from './machine-key-file.js';

export interface ServeOptions {
  readonly port: number;
  readonly listen: string;
  /** The app's data directory: install state, demo registry (same layout as the tray app). */
  readonly dataDir: string;
  /** '' runs the embedded demo registry, as the tray app does when nothing is configured. */
  readonly baseUrl: string;
  readonly pubkeys: readonly string[];
  readonly machineKey: string;
  readonly checkIntervalMs: number;
  /** Every check asks for a statement signed for its own nonce (docs/PROTOCOL.md §2.7.5). */
  readonly requireNonce: boolean;
  /** `--no-proxy`: ignore the proxy variables (docs/UPDATER.md §7, Proxy). */
  readonly noProxy: boolean;
  /** `--trusted-root FILE`: the TUF root trust starts from (docs/PROTOCOL.md §TUF repository). */
  readonly trustedRoot?: string;
  /** The flags given of the window's socket limits; the rest keep WEB_SOCKET_LIMITS. */
  readonly socketLimits: Partial<SocketLimits>;
}

export const SERVE_USAGE = `usage: npm run updater -- serve [--port N] [--listen ADDR] [--data-dir DIR]
  [--base-url URL (--trusted-root FILE | --pubkey HEX [--pubkey HEX ...])
   [--machine-key-file PATH]] [--interval-s N]
  [--require-nonce]
  Runs the updater on its schedule and serves the tray window's page on http://ADDR:PORT.
  The first stdout line is {"url": "http://ADDR:PORT/?token=..."}: open it in a browser.
  --port N        0-65535 (0 = any free port; default 0)
  --listen ADDR   the address to listen on (default 127.0.0.1, this machine only)
  --data-dir DIR  install state and demo registry (default: the tray app's own folder)
  --base-url URL  the registry (default: the embedded demo registry, on this machine)
  --pubkey HEX    the registry's pinned key(s) (default: resources/pinned-key.txt)
  --trusted-root FILE   the registry's TUF root.json (default: resources/root.json if any)
  --machine-key-file PATH   or env UPDATER_MACHINE_KEY (--machine-key KEY shows in ps)
  --interval-s N  seconds between automatic checks (default 3600, at least 60)
  --require-nonce send a fresh nonce with every manifest request and accept only an answer
                  signed for it (the settings screen can change it)
  --no-proxy      ignore https_proxy / HTTPS_PROXY, http_proxy, ALL_PROXY and NO_PROXY (by
                  default the registry and the ranking are reached through them, as curl does)
  --headers-timeout-ms N, --request-timeout-ms N, --keep-alive-timeout-ms N,
  --idle-timeout-ms N, --max-connections N, --fd-reserve N
                  the window's socket limits (defaults 10000, 30000, 5000, 60000, 128, 256)`;

/** Where the tray app keeps its data (Electron's userData for the app's name). */
export function defaultDataDir(
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  appName = 'verified-updater',
): string {
  if (platform === 'win32')
    return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), appName);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', appName);
  const config = env['XDG_CONFIG_HOME'];
  return join(config !== undefined && config !== '' ? config : join(home, '.config'), appName);
}

function usage(message: string): never {
  throw new UpdateError('CONFIG_INVALID', message);
}

function integer(raw: string | undefined, flag: string, min: number, max: number): number | null {
  if (raw === undefined) return null;
  if (!/^\d{1,10}$/.test(raw)) usage(`--${flag} must be a whole number`);
  const value = Number(raw);
  if (value < min || value > max) usage(`--${flag} must be between ${min} and ${max}`);
  return value;
}

/** Parses `serve`'s flags (argv after the word serve). */
export function parseServeArgs(
  argv: readonly string[],
  env: { readonly machineKey: string | undefined; readonly defaultDataDir: string },
): ServeOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        port: { type: 'string' },
        listen: { type: 'string' },
        'data-dir': { type: 'string' },
        'base-url': { type: 'string' },
        pubkey: { type: 'string', multiple: true },
        'trusted-root': { type: 'string' },
        'machine-key': { type: 'string' },
        'interval-s': { type: 'string' },
        'machine-key-file': { type: 'string' },
        'require-nonce': { type: 'boolean' },
        'no-proxy': { type: 'boolean' },
        ...LIMIT_FLAGS,
      },
    }));
  } catch (error) {
    usage(error instanceof Error ? error.message : 'bad arguments');
  }
  const listen = values.listen ?? '127.0.0.1';
  if (listen !== 'localhost' && isIP(listen) === 0) {
    usage('--listen takes an IP address (or localhost), never a DNS name');
  }
  const intervalS = integer(
    values['interval-s'],
    'interval-s',
    MIN_CHECK_INTERVAL_MS / 1000,
    7 * 24 * 3600,
  );
  const trustedRoot = values['trusted-root'];
  if (trustedRoot === '') usage('--trusted-root must not be empty');
  const dataDir = values['data-dir'] ?? env.defaultDataDir;
  if (dataDir === '') usage('--data-dir must not be empty');
  return {
    port: integer(values.port, 'port', 0, 65_535) ?? 0,
    listen,
    dataDir,
    baseUrl: values['base-url'] ?? '',
    pubkeys: values.pubkey ?? [],
    machineKey: machineKeyOf(values['machine-key'], values['machine-key-file'], env.machineKey),
    checkIntervalMs: (intervalS ?? 3600) * 1000,
    requireNonce: values['require-nonce'] === true,
    noProxy: values['no-proxy'] === true,
    ...(trustedRoot === undefined ? {} : { trustedRoot }),
    socketLimits: socketLimitsOf(values),
  };
}

const DAY_MS = 86_400_000;

/** The socket-limit flags (the companion server's names), their fields and ranges. */
const LIMITS: readonly [string, keyof SocketLimits, number, number][] = [
  ['headers-timeout-ms', 'headersTimeoutMs', 100, DAY_MS],
  ['request-timeout-ms', 'requestTimeoutMs', 100, DAY_MS],
  ['keep-alive-timeout-ms', 'keepAliveTimeoutMs', 100, DAY_MS],
  ['idle-timeout-ms', 'idleTimeoutMs', 100, DAY_MS],
  ['max-connections', 'maxConnections', 1, 1_000_000],
  ['fd-reserve', 'fdReserve', 0, 1_000_000],
];

const LIMIT_FLAGS = Object.fromEntries(
  LIMITS.map(([flag]) => [flag, { type: 'string' as const }]),
) as Record<string, { type: 'string' }>;

function socketLimitsOf(values: Readonly<Record<string, unknown>>): Partial<SocketLimits> {
  const limits: { -readonly [K in keyof SocketLimits]?: number } = {};
  for (const [flag, field, min, max] of LIMITS) {
    const raw = values[flag];
    const value = integer(typeof raw === 'string' ? raw : undefined, flag, min, max);
    if (value !== null) limits[field] = value;
  }
  return limits;
}
