/**
 * Starts the companion server in-process on a real port (QA harnesses, integration tests).
 * In-process servers log nothing unless `logLevel` is given.
 * @example
 *   const server = await startServer({ dev: true });
 *   const key = await fetch(`${server.url}/api/demo-key/mint`, { method: 'POST' });
 *   await server.close();
 */
import type { AddressInfo } from 'node:net';
import { buildApp, type BuildDeps, type ServerCounters } from './app.js';
import type { ServerClock } from '../platform/clock.js';
import type { Faults } from '../dev/faults.js';
import type { RequestLog } from '../dev/request-log.js';
import type { PublishInput, PublishResult } from '../updates/publish/publisher.js';
import type { Modules } from './modules.js';
import type { ServerOptions } from './options.js';

export interface RunningServer {
  /** http://HOST:PORT without a trailing slash. */
  readonly url: string;
  /** The node's Ed25519 public key as 64 lowercase hex (the client pins it). */
  readonly nodePubkey: string;
  /** The data directory in use (temporary unless options.dataDir was given). */
  readonly dataDir: string;
  /** Stops listening, closes every module, removes a temporary data directory. */
  close(): Promise<void>;
  /** Same as POST /api/dev/reset. */
  reset(): Promise<void>;
  /** Publishes a release, signed with the node key. */
  publish(input: PublishInput): Promise<PublishResult>;
  readonly clock: ServerClock;
  /** One-shot faults; arming needs options.dev. */
  readonly faults: Faults;
  /** The request log; records only with options.dev. */
  readonly requests: RequestLog;
  readonly updates: Modules['updates']['api'];
  readonly oauth: Modules['oauth']['api'];
  readonly chain: Modules['chain']['api'];
  /** What the rate limits and the connection cap counted (docs/SERVER.md §Rate limits). */
  counters(): ServerCounters;
  /** Fields each module adds to the first stdout line. */
  describe(): Record<string, unknown>;
}

/** Formats a listen address as a URL host. */
function urlHost(address: AddressInfo): string {
  const a = address.address;
  if (a === '0.0.0.0' || a === '::') return '127.0.0.1';
  return a.includes(':') ? `[${a}]` : a;
}

/** Builds the app, listens, and returns the handle. */
export async function startServer(
  options: Partial<ServerOptions> = {},
  deps: BuildDeps = {},
): Promise<RunningServer> {
  const built = await buildApp({ logLevel: 'silent', ...options }, deps);
  const { app, modules } = built;
  try {
    await app.listen({ port: built.ctx.options.port, host: built.ctx.options.host });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address() as AddressInfo;
  const url = `http://${urlHost(address)}:${address.port}`;
  built.setBaseUrl(url);
  let closing: Promise<void> | undefined;
  return {
    url,
    nodePubkey: modules.updates.api.nodePubkey,
    dataDir: built.ctx.dataDir,
    close: () => (closing ??= app.close()),
    reset: () => built.reset(),
    publish: (input) => modules.updates.api.publish(input),
    clock: built.clock,
    faults: built.faults,
    requests: built.requests,
    updates: modules.updates.api,
    oauth: modules.oauth.api,
    chain: modules.chain.api,
    counters: () => built.counters(),
    describe: () => {
      const out: Record<string, unknown> = {};
      for (const m of Object.values(modules)) Object.assign(out, m.describe?.() ?? {});
      return out;
    },
  };
}
