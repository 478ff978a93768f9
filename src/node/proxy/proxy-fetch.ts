/**
 * A `fetch` that sends each request through the proxy the environment names for its URL
 * (env-proxy.ts, docs/UPDATER.md §7, Proxy), over undici: absolute-form requests for http
 * URLs (RFC 9112 §3.2.2), a CONNECT tunnel for https (RFC 9110 §9.3.6), Basic proxy
 * credentials from the proxy URL's user-info; URLs the proxy does not cover go directly. The
 * Fetcher port over it is fetch-fetcher.ts, as in the tray app with Electron's net.fetch.
 *
 * Failures caused by the proxy say so and name the variable, never the credentials: a refused
 * connection, a refused tunnel, a 407.
 */
import type * as Undici from 'undici';
import { UpdateError } from '#core/errors.js';
import { safeUrl } from '#core/transfer/index.js';
import { proxyFor, type ProxyServer, type ProxySettings } from './env-proxy.js';
import type { SessionFetch } from '../http/index.js';

export type UndiciParts = Pick<typeof Undici, 'Agent' | 'ProxyAgent' | 'fetch'>;

export interface ProxyFetch {
  readonly fetch: SessionFetch;
  /** Drops the proxy's and the direct connections (after the last request). */
  close(): Promise<void>;
}

/**
 * Loads undici at the first proxied run: in the CLI bundle its own file beside the bundle
 * (scripts/build-cli.mjs), from source the module next to this one.
 */
export async function loadUndici(): Promise<UndiciParts> {
  const module = import.meta.url.endsWith('.mjs') ? './undici.mjs' : './undici-entry.js';
  return (await import(module)) as UndiciParts;
}

function describe(server: ProxyServer): string {
  return `the proxy ${server.origin} (${server.variable})`;
}

function authHint(server: ProxyServer): string {
  return server.authorization === undefined
    ? `it wants credentials: ${server.variable}=http://USER:PASSWORD@host:port`
    : `check the user and password in ${server.variable}`;
}

/** 407 from the proxy: its credentials are missing or wrong; retrying cannot fix that. */
function refusedAuth(server: ProxyServer, url: string, cause?: unknown): UpdateError {
  return new UpdateError(
    'HTTP_STATUS',
    `${describe(server)} refused the request: 407 Proxy Authentication Required (${authHint(server)})`,
    { cause, details: { url: safeUrl(url), proxy: server.origin, status: 407 } },
  );
}

/** The messages and codes along an error's cause chain (undici nests the reason 1-3 deep). */
function causes(error: unknown): { messages: string[]; codes: string[] } {
  const messages: string[] = [];
  const codes: string[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 6 && typeof at === 'object' && at !== null; depth++) {
    const { message, code, cause } = at as { message?: unknown; code?: unknown; cause?: unknown };
    if (typeof message === 'string') messages.push(message);
    if (typeof code === 'string') codes.push(code);
    at = cause;
  }
  return { messages, codes };
}

/** A failed request that went to the proxy, said as such. */
export function proxyError(server: ProxyServer, url: string, error: unknown): UpdateError {
  const { messages, codes } = causes(error);
  const text = messages.join(' | ');
  // undici: "Proxy Authentication Required (407)" (absolute-form), "Proxy response (N) !== 200
  // when HTTP Tunneling" (CONNECT).
  const status = /Proxy (?:Authentication Required \((407)\)|response \((\d{3})\))/.exec(text);
  if (status !== null) {
    const code = Number(status[1] ?? status[2]);
    if (code === 407) return refusedAuth(server, url, error);
    return new UpdateError(
      'NETWORK',
      `${describe(server)} refused the tunnel to ${new URL(url).host}: HTTP ${code}`,
      {
        cause: error,
        transient: code >= 500,
        details: { url: safeUrl(url), proxy: server.origin, status: code },
      },
    );
  }
  // An errno (ECONNREFUSED) says more than undici's own codes (UND_ERR_…).
  const code = codes.find((c) => !c.startsWith('UND_ERR')) ?? codes[0];
  const reason = messages.at(-1) ?? 'request failed';
  const said =
    code === 'ECONNREFUSED'
      ? `${describe(server)} refused the connection`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `${describe(server)} does not resolve`
        : // Past the proxy (a TLS failure in the tunnel, a dropped answer): through it.
          `request through ${describe(server)} failed`;
  return new UpdateError('NETWORK', `${said}${code === undefined ? '' : ` (${code})`}: ${reason}`, {
    cause: error,
    transient: true,
    details: {
      url: safeUrl(url),
      proxy: server.origin,
      ...(code === undefined ? {} : { errno: code }),
    },
  });
}

/**
 * A direct request of a proxied run that failed: as the node:http fetcher says it
 * (network-error.ts), the errno and the URL, not undici's bare "fetch failed".
 */
export function directError(url: string, error: unknown): UpdateError {
  const { messages, codes } = causes(error);
  const code = codes.find((c) => !c.startsWith('UND_ERR')) ?? codes[0] ?? 'ERR';
  return new UpdateError('NETWORK', `${code}: ${messages.at(-1) ?? 'request failed'}`, {
    cause: error,
    transient: true,
    details: { url: safeUrl(url), errno: code },
  });
}

/** Builds the fetch for `settings` over the loaded undici. */
export function createProxyFetch(settings: ProxySettings, undici: UndiciParts): ProxyFetch {
  const direct = new undici.Agent();
  const agents = new Map<ProxyServer, Undici.ProxyAgent>();
  const agentOf = (server: ProxyServer): Undici.ProxyAgent => {
    let agent = agents.get(server);
    if (agent === undefined) {
      agent = new undici.ProxyAgent({
        uri: server.origin,
        // Through an http:// proxy: http URLs in absolute form, https ones through CONNECT
        // (undici's default tunnels both; through an https:// proxy it tunnels both anyway).
        proxyTunnel: false,
        ...(server.authorization === undefined ? {} : { token: server.authorization }),
      });
      agents.set(server, agent);
    }
    return agent;
  };
  const fetch: SessionFetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input.href;
    const server = proxyFor(settings, url);
    const dispatcher = server === null ? direct : agentOf(server);
    let response: Response;
    try {
      response = (await undici.fetch(url, {
        ...(init as Undici.RequestInit),
        dispatcher,
      })) as unknown as Response;
    } catch (error) {
      // An abort stays as it is: the port adapter (fetch-fetcher.ts) makes it ABORTED.
      if (init?.signal?.aborted === true) throw error;
      throw server === null ? directError(url, error) : proxyError(server, url, error);
    }
    // Only a proxy answers 407 (RFC 9110 §15.5.8): an absolute-form request it refused.
    if (server !== null && response.status === 407) {
      await response.body?.cancel().catch(() => undefined);
      throw refusedAuth(server, url);
    }
    return response;
  };
  return {
    fetch,
    async close() {
      await Promise.all([direct, ...agents.values()].map((agent) => agent.destroy()));
    },
  };
}
