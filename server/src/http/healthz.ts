/** GET /healthz: liveness for QA harnesses and load balancers. */
import type { FastifyInstance } from 'fastify';
import type { ServerClock } from '../platform/clock.js';

export function registerHealthz(app: FastifyInstance, clock: ServerClock): void {
  app.get('/healthz', () => ({ ok: true, status: 'up', now: new Date(clock.now()).toISOString() }));
}
