/**
 * The parts of undici the updater uses (undici-fetcher.ts, src/node/proxy/proxy-fetch.ts),
 * behind one module so the CLI build puts them in their own bundle (dist/cli/undici.mjs,
 * scripts/build-cli.mjs): a command that sends no request (`status`, `verify`, `rollback`)
 * never parses or loads undici (docs/UPDATER.md §5, One HTTP stack).
 */
export { Agent, ProxyAgent, fetch } from 'undici';
