/**
 * The registry's TCP connection opened by the CLI's launcher (launcher.ts) before the updater's
 * bundle is loaded (docs/UPDATER.md §11.2): node's start and the bundle's
 * load take tens of milliseconds, and over a real link the TCP handshake then runs beside them
 * instead of after them. The bundle takes the socket over (`takeEarlyConnection`, main.ts) and
 * the fetcher checks that it goes to the base URL's origin, then hands it to its agent as its
 * warm connection (src/node/http/warm-connections.ts), which runs the TLS handshake for https.
 *
 * Opened only where the run will surely connect there first and directly: `check` or `update`
 * on a command line the CLI's own parser accepts (arg-options.ts), an http(s) `--base-url`
 * without user info, and no proxy variable set (unless `--no-proxy`). Anything else opens
 * nothing. The socket holds no process open (unref'd), an error only closes it, and one not
 * taken within `EARLY_IDLE_MS` is closed. Nothing is sent on it before the bundle takes it.
 */
import { connect, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import type { EarlySocket } from '#node/http/index.js';
import { CLI_OPTIONS } from './arg-options.js';

/** An early connection no run took by then is closed. */
export const EARLY_IDLE_MS = 10_000;

/** Where the launcher leaves the connection for the bundle (two module graphs, one process). */
const SLOT = Symbol.for('verified-updater.early-connection');

/**
 * Any of these set: the run may go through a proxy (src/node/proxy/env-proxy.ts reads
 * them, with NO_PROXY; the launcher does not second-guess which host bypasses it).
 */
const PROXY_VARIABLES = [
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'all_proxy',
  'ALL_PROXY',
];

export interface EarlyTarget {
  readonly secure: boolean;
  /** As the request's connection will name it: an IPv6 address without brackets. */
  readonly host: string;
  readonly port: number;
}

/** Where a run of `argv` will first connect, when the launcher may open that connection. */
export function earlyTarget(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): EarlyTarget | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: CLI_OPTIONS,
    });
  } catch {
    return undefined;
  }
  const { values, positionals } = parsed;
  const command = positionals.length === 1 ? positionals[0] : undefined;
  if (command !== 'check' && command !== 'update') return undefined;
  const proxied = PROXY_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
  if (proxied && values['no-proxy'] !== true) return undefined;
  const base = values['base-url'];
  let url: URL;
  try {
    url = new URL(base ?? '');
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return undefined;
  const secure = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  return { secure, host, port };
}

/** Opens a TCP connection to `target`: unref'd, closed by an error or after `idleMs`. */
export function earlySocket(
  target: EarlyTarget,
  open: (host: string, port: number) => Socket = (host, port) => connect({ host, port }),
  idleMs = EARLY_IDLE_MS,
): EarlySocket {
  const socket = open(target.host, target.port);
  socket.unref();
  const close = (): void => {
    socket.destroy();
  };
  socket.on('error', close);
  const timer = setTimeout(close, idleMs);
  timer.unref();
  let taken = false;
  return {
    ...target,
    adopt() {
      if (taken) return undefined;
      taken = true;
      clearTimeout(timer);
      socket.off('error', close);
      if (socket.destroyed) return undefined;
      socket.ref();
      return socket;
    },
  };
}

type Slot = Record<symbol, EarlySocket | undefined>;

/** The launcher's part: opens the connection `argv` will use, if any, for the bundle to take. */
export function openEarlyConnection(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): void {
  const target = earlyTarget(argv, env);
  if (target !== undefined) (globalThis as unknown as Slot)[SLOT] = earlySocket(target);
}

/** The bundle's part: the connection the launcher opened (once), if it opened one. */
export function takeEarlyConnection(): EarlySocket | undefined {
  const slot = globalThis as unknown as Slot;
  const early = slot[SLOT];
  slot[SLOT] = undefined;
  return early;
}
