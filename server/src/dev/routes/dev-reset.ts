/** POST /api/dev/reset: every module back to its initial state, clock offset zero. */
import type { FastifyInstance } from 'fastify';

export function registerDevReset(scope: FastifyInstance, reset: () => Promise<void>): void {
  scope.post('/api/dev/reset', async () => {
    await reset();
    return { ok: true };
  });
}
