/**
 * The foundation's dev (test-control) routes, mounted only with --dev (docs/PROTOCOL.md §6).
 * They live in one encapsulated plugin that uses the lenient JSON body policy.
 */
import type { FastifyInstance } from 'fastify';
import type { ServerClock } from '../../platform/clock.js';
import type { Faults } from '../faults.js';
import type { RequestLog } from '../request-log.js';
import { useLenientJson } from '../../http/json-body.js';
import { registerDevClock } from './dev-clock.js';
import { registerDevFaults } from './dev-faults.js';
import { registerDevRequests } from './dev-requests.js';
import { registerDevReset } from './dev-reset.js';

export interface DevControls {
  readonly clock: ServerClock;
  readonly faults: Faults;
  readonly requests: RequestLog;
  readonly reset: () => Promise<void>;
  /** Rate-limit and connection counters, shown beside the request log. */
  readonly counters: () => Record<string, unknown>;
}

export function registerDevRoutes(app: FastifyInstance, controls: DevControls): void {
  void app.register((scope, _opts, done) => {
    useLenientJson(scope);
    registerDevReset(scope, controls.reset);
    registerDevClock(scope, controls.clock);
    registerDevRequests(scope, controls.requests, controls.counters);
    registerDevFaults(scope, controls.faults);
    done();
  });
}
