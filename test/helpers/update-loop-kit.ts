/**
 * The update loop's ports for the core's unit tests, with the defaults most tests share: a fake
 * clock, immediate timers, a fixed random, a silent logger, the test service with machine key
 * `mk`, and the default limits. A test spreads them and overrides only what it is about.
 */
import { resolveLimits } from '#core/limits.js';
import { silentLogger, type Fetcher, type LocalStore } from '#core/ports.js';
import type { UpdateLoopDeps } from '#core/schedule/update-loop.js';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { pinKeys } from '#core/trust/verify.js';
import { FakeTime, immediateTimers } from './fakes.js';

/** `fetcher` and `store` behind the test service, trusting the key `pinnedHex`. */
export function loopDeps(fetcher: Fetcher, store: LocalStore, pinnedHex: string): UpdateLoopDeps {
  return {
    fetcher,
    store,
    clock: new FakeTime(),
    timers: immediateTimers,
    random: () => 0.5,
    logger: silentLogger,
    endpoint: parseEndpoint('http://updates.test/', 'mk'),
    pinned: pinKeys([pinnedHex]),
    limits: resolveLimits({}),
  };
}
