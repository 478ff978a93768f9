/**
 * The CLI's proxy from the environment (docs/UPDATER.md §7, Proxy): read once per run by
 * `check`, `update` and `serve` unless `--no-proxy` says not to. No proxy variable: undefined,
 * and the run keeps the node:http fetcher without loading undici. A malformed proxy URL is
 * CONFIG_INVALID naming it (exit 2); a NO_PROXY entry it cannot read, or an ALL_PROXY of
 * another kind (SOCKS), is skipped with a warning.
 */
import { proxySettings, usesProxy, type ProxyEnvironment } from '#node/proxy/index.js';
import { createProxyFetch, loadUndici, type ProxyFetch } from '#node/proxy/index.js';

export async function openCliProxy(
  environment: ProxyEnvironment,
  baseUrl: string,
  warn: (message: string) => void,
): Promise<ProxyFetch | undefined> {
  const settings = proxySettings(environment);
  // Said only where it matters: many hosts set HTTP_PROXY and HTTPS_PROXY together.
  const httpRegistry = /^http:/i.test(baseUrl);
  if (settings?.ignored.includes('HTTP_PROXY') === true && settings.http === null && httpRegistry) {
    warn('HTTP_PROXY is ignored, as curl ignores it (httpoxy): http URLs use http_proxy');
  }
  for (const message of settings?.warnings ?? []) warn(message);
  if (!usesProxy(settings)) return undefined;
  return createProxyFetch(settings, await loadUndici());
}
