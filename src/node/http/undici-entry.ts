/**
 * The part of undici the fetcher uses (undici-fetcher.ts): its `Agent`, taken from undici's
 * own module rather than its index, which also evaluates `fetch`, web streams, WebSocket, the
 * cache and the mock agents at load: half the memory of loading undici (docs/UPDATER.md §8,
 * One HTTP stack). The CLI build puts it in its own file (dist/cli/undici.mjs,
 * scripts/build-cli.mjs), imported at a run's first request: a command that sends none never
 * parses it.
 */
import Agent from 'undici/lib/dispatcher/agent.js';

export { Agent };
