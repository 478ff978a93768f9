/** The proxy group's only door: what the rest of the updater uses of it. */
export { proxySettings, usesProxy } from './env-proxy.js';
export type { ProxyEnvironment } from './env-proxy.js';
export { createProxyFetch, loadUndici } from './proxy-fetch.js';
export type { ProxyFetch } from './proxy-fetch.js';
