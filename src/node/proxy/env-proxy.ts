/**
 * The proxy a CLI run uses, read from the environment as curl reads it (docs/UPDATER.md §7,
 * Proxy). A pure function: the environment in, a decision out; the entry point passes
 * `process.env` (docs/ARCHITECTURE.md §Habits), the fetch of proxy-fetch.ts applies the decision.
 *
 * - http URLs: `http_proxy` only. The upper-case `HTTP_PROXY` is ignored, as curl ignores it:
 *   a CGI program gets each request header as `HTTP_<NAME>`, so a request carrying
 *   `Proxy: evil` would set it (httpoxy, CVE-2016-5385). It is reported in `ignored` so the
 *   CLI can say why nothing happened.
 * - https URLs: `https_proxy`, else `HTTPS_PROXY`.
 * - Either, when its own variable is unset: `all_proxy`, else `ALL_PROXY`.
 * - `no_proxy`, else `NO_PROXY` (no-proxy.ts); loopback is always direct.
 * An empty variable counts as unset. A value without a scheme is http (`proxy.corp:3128`).
 */
import { UpdateError } from '#core/errors.js';
import { bypasses, isLoopbackHost, parseNoProxy, type NoProxy } from './no-proxy.js';

export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

/** A proxy server, with its credentials split out of the URL. */
export interface ProxyServer {
  /** `scheme://host:port`, without user-info: safe to print. */
  readonly origin: string;
  /** The variable it came from, for messages. */
  readonly variable: string;
  /** `Basic …` from the URL's user-info; never printed. */
  readonly authorization: string | undefined;
}

export interface ProxySettings {
  readonly http: ProxyServer | null;
  readonly https: ProxyServer | null;
  readonly noProxy: NoProxy;
  /** Variables set but not used (only `HTTP_PROXY`, see above). */
  readonly ignored: readonly string[];
  /** What was set and skipped, for the CLI to say (never a variable's value). */
  readonly warnings: readonly string[];
}

/** The first set, non-empty variable of `names`. */
function first(env: ProxyEnvironment, names: readonly string[]): [string, string] | null {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return [name, value];
  }
  return null;
}

function malformed(variable: string, why: string): never {
  // Never the value: it may hold the proxy's password.
  throw new UpdateError(
    'CONFIG_INVALID',
    `${variable} is not a usable proxy URL (${why}); expected http://[user:password@]host[:port]`,
  );
}

/** Parses one proxy variable's value; CONFIG_INVALID naming the variable when malformed. */
export function parseProxyUrl(variable: string, value: string): ProxyServer {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    malformed(variable, 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    malformed(
      variable,
      `the scheme ${url.protocol.slice(0, -1)} is not supported, only http and https`,
    );
  }
  if (url.hostname === '') malformed(variable, 'no host');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    malformed(variable, 'a proxy URL has no path, query or fragment');
  }
  let authorization: string | undefined;
  if (url.username !== '' || url.password !== '') {
    let user: string;
    let password: string;
    try {
      user = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    } catch {
      malformed(variable, 'the credentials are not valid percent-encoding');
    }
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  // url.host keeps a non-default port and brackets an IPv6 literal.
  return { origin: `${url.protocol}//${url.host}`, variable, authorization };
}

/**
 * The proxy settings of the environment; null when no proxy variable is set (the run then is
 * exactly as without this feature: node:http, no undici).
 */
export function proxySettings(env: ProxyEnvironment): ProxySettings | null {
  const warnings: string[] = [];
  let all = first(env, ['all_proxy', 'ALL_PROXY']);
  // The fallback of every program of a machine, often a SOCKS proxy (desktop proxy clients set
  // `all_proxy=socks5://...`): one this CLI cannot use is passed over, not fatal. A scheme
  // named for our own URLs (http_proxy, https_proxy) stays CONFIG_INVALID below.
  if (all !== null && !/^(?:https?:\/\/|(?![a-z][a-z0-9+.-]*:\/\/))/i.test(all[1])) {
    warnings.push(`${all[0]} names a proxy of another kind than http or https: not used`);
    all = null;
  }
  const http = first(env, ['http_proxy']) ?? all;
  const https = first(env, ['https_proxy', 'HTTPS_PROXY']) ?? all;
  const ignored =
    first(env, ['HTTP_PROXY']) !== null && http?.[0] !== 'http_proxy' ? ['HTTP_PROXY'] : [];
  if (http === null && https === null) {
    return ignored.length === 0 && warnings.length === 0
      ? null
      : { http: null, https: null, noProxy: [], ignored, warnings };
  }
  const noProxyVar = first(env, ['no_proxy', 'NO_PROXY']);
  const skipped = (message: string): void => {
    warnings.push(message);
  };
  return {
    http: http === null ? null : parseProxyUrl(...http),
    https: https === null ? null : parseProxyUrl(...https),
    noProxy: noProxyVar === null ? [] : parseNoProxy(noProxyVar[1], noProxyVar[0], skipped),
    ignored,
    warnings,
  };
}

/** The proxy a request to `url` goes through, or null to go directly. */
export function proxyFor(settings: ProxySettings, url: string | URL): ProxyServer | null {
  const target = typeof url === 'string' ? new URL(url) : url;
  const server =
    target.protocol === 'https:'
      ? settings.https
      : target.protocol === 'http:'
        ? settings.http
        : null;
  if (server === null || isLoopbackHost(target.hostname)) return null;
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  return bypasses(settings.noProxy, target.hostname, port) ? null : server;
}

/** True when some request could go through a proxy (then the proxy fetch is built). */
export function usesProxy(settings: ProxySettings | null): settings is ProxySettings {
  return settings !== null && (settings.http !== null || settings.https !== null);
}
