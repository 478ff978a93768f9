/**
 * `updater serve` (docs/UPDATER.md §serve): the updater as a long-lived process on its
 * schedule, with the tray window's page served on a local port (src/web/). The first stdout
 * line is one JSON object, `{"url": "http://127.0.0.1:PORT/?token=..."}`; everything else
 * goes to stderr. Runs until SIGINT, SIGTERM or SIGHUP, then closes the core (releasing its lock), the
 * demo registry and the port. Exit codes as the other commands: 0 stopped cleanly, 1 failed,
 * 2 usage or configuration, 74 for a clean stop whose stdout could not be written
 * (broken-pipe.ts).
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isUpdateError, toUpdateError } from '#core/errors.js';
import { DEFAULT_SETTINGS, memorySettings } from '#app/settings/settings.js';
import { isLoopback } from '#web/web-access.js';
import { openWebApp, type WebApp } from '#web/web-app.js';
import type { ProxyFetch } from '#node/proxy/index.js';
import { openCliProxy } from './cli-proxy.js';
import { INTERRUPT_SIGNALS } from './interrupt-signals.js';
import type { CliEnv, CliIo } from './cli-io.js';
import { defaultDataDir, parseServeArgs, SERVE_USAGE, type ServeOptions } from './serve-args.js';

export interface ServeEnv extends CliEnv {
  /** Resolves when the server should stop (default: SIGINT, SIGTERM or SIGHUP). */
  readonly stop?: Promise<unknown>;
  /** The built desktop app (default: dist/app next to this bundle or this source tree). */
  readonly appDir?: string;
  readonly resourcesDir?: string;
  readonly platform?: NodeJS.Platform;
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const here = dirname(fileURLToPath(import.meta.url));
/** dist/cli/serve.mjs -> dist/app; src/cli/serve.ts -> dist/app. */
const bundled = here.endsWith(join('dist', 'cli'));
const DEFAULT_APP_DIR = bundled ? join(here, '..', 'app') : join(here, '..', '..', 'dist', 'app');
const DEFAULT_RESOURCES_DIR = join(here, '..', '..', 'resources');

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP (the terminal closed: by default it killed
 * the process with the core's lock held, docs/UPDATER.md §serve). The handlers stay until the
 * process ends, so a second signal (Ctrl+C reaches `npm start` and this process alike, and npm
 * start forwards SIGTERM) cannot kill it halfway through closing the core.
 */
function signalled(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of STOP_SIGNALS) process.on(signal, resolve);
  });
}

/** The signals `serve` stops on, cleanly (exit 0): those that interrupt a CLI run. */
export const STOP_SIGNALS = INTERRUPT_SIGNALS;

function listenError(error: unknown, options: ServeOptions): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') return `port ${options.port} on ${options.listen} is in use`;
  if (code === 'EADDRNOTAVAIL') return `${options.listen} is not an address of this machine`;
  if (code === 'EACCES') return `not allowed to listen on ${options.listen}:${options.port}`;
  return null;
}

type Fail = (code: string, message: string) => number;

/** The web app of `serve`, or the exit code of why it could not start. */
async function startApp(
  options: ServeOptions,
  env: ServeEnv,
  proxy: ProxyFetch | undefined,
  log: (level: string, message: string) => void,
  fail: Fail,
): Promise<WebApp | number> {
  try {
    return await openWebApp({
      listen: { host: options.listen, port: options.port },
      dataDir: options.dataDir,
      settings: memorySettings({
        ...DEFAULT_SETTINGS,
        baseUrl: options.baseUrl,
        pinnedKeys: options.pubkeys,
        checkIntervalMs: options.checkIntervalMs,
        requireNonce: options.requireNonce,
      }),
      machineKey: options.machineKey,
      socketLimits: options.socketLimits,
      resourcesDir: env.resourcesDir ?? DEFAULT_RESOURCES_DIR,
      appDir: env.appDir ?? DEFAULT_APP_DIR,
      log,
      notify: (notice) => log('notice', `${notice.title}: ${notice.body}`),
      ...(proxy === undefined ? {} : { fetch: proxy.fetch }),
      ...(options.trustedRoot === undefined ? {} : { trustedRootFile: options.trustedRoot }),
    });
  } catch (error) {
    await proxy?.close();
    const busy = listenError(error, options);
    // A port in use is EADDRINUSE, exit 1, as from the companion server and `npm start`.
    const code = (error as { code?: unknown } | null)?.code;
    if (busy !== null) return fail(code === 'EADDRINUSE' ? code : 'CONFIG_INVALID', busy);
    if (isUpdateError(error)) return fail(error.code, error.message);
    return fail('IO', error instanceof Error ? error.message : String(error));
  }
}

/** The environment's proxy for every request of the window, or the exit code of a refusal. */
async function serveProxy(
  options: ServeOptions,
  env: ServeEnv,
  log: (level: string, message: string) => void,
  fail: Fail,
): Promise<ProxyFetch | undefined | number> {
  if (options.noProxy) return undefined;
  try {
    // The core's requests, the demo key and the ranking alike (docs/UPDATER.md §7, Proxy).
    return await openCliProxy(env.environment ?? {}, options.baseUrl, (m) => log('warn', m));
  } catch (error) {
    // Its own code: a malformed variable is CONFIG_INVALID, a proxy bundle that will not load
    // (a broken install) is not.
    const refusal = toUpdateError(error);
    return fail(refusal.code, refusal.message);
  }
}

/** Runs `updater serve` (argv after the word serve) and resolves to its exit code. */
export async function runServe(argv: readonly string[], env: ServeEnv, io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${SERVE_USAGE}\n`);
    return 0;
  }
  const fail: Fail = (code, message) => {
    io.stderr(`error ${code}: ${message}\n`);
    return code === 'CONFIG_INVALID' ? 2 : 1;
  };
  let options: ServeOptions;
  try {
    const platform = env.platform ?? process.platform;
    const defaults = defaultDataDir(platform, env.environment ?? process.env, homedir());
    options = parseServeArgs(argv, { machineKey: env.machineKey, defaultDataDir: defaults });
  } catch (error) {
    io.stderr(`${SERVE_USAGE}\n`);
    return fail('CONFIG_INVALID', error instanceof Error ? error.message : 'bad arguments');
  }
  const log = (level: string, message: string): void => io.stderr(`${level} ${message}\n`);
  const proxy = await serveProxy(options, env, log, fail);
  if (typeof proxy === 'number') return proxy;
  const app = await startApp(options, env, proxy, log, fail);
  if (typeof app === 'number') return app;
  io.stdout(`${JSON.stringify({ url: app.window.url })}\n`);
  io.stderr(
    `serving the updater window (${app.registryLabel}); open the address above. Ctrl+C stops.\n`,
  );
  if (!isLoopback(options.listen)) {
    io.stderr(
      `warn listening on ${options.listen}: other machines can reach this port; the token is ` +
        'all that protects it, and plain http carries it in clear (docs/SECURITY.md §Web window)\n',
    );
  }
  await (env.stop ?? signalled());
  io.stderr('stopping…\n');
  await app.close();
  await proxy?.close();
  return 0;
}
