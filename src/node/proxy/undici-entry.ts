/**
 * The parts of undici the CLI's proxy support uses (proxy-fetch.ts), behind one module so the
 * CLI build puts them in their own bundle (dist/cli/undici.mjs, scripts/build-cli.mjs): a run
 * with no proxy variable never parses or loads undici (docs/UPDATER.md §7, Proxy).
 */
export { Agent, ProxyAgent, fetch } from 'undici';
