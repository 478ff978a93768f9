/**
 * The parts of undici the CLI's proxy support uses (proxy-fetch.ts), behind one module so the
 * CLI build puts them in their own bundle (dist/cli/undici-proxy.mjs, scripts/build-cli.mjs),
 * imported only by a run that has a proxy variable (docs/UPDATER.md §7, Proxy).
 */
export { Agent, ProxyAgent, fetch } from 'undici';
