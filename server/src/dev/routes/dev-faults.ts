/**
 * POST /api/dev/faults arms a one-shot fault, GET lists the armed ones, DELETE clears them
 * (docs/PROTOCOL.md §6).
 */
import type { FastifyInstance } from 'fastify';
import type { Faults } from '../faults.js';

export function registerDevFaults(scope: FastifyInstance, faults: Faults): void {
  scope.post('/api/dev/faults', (request) => {
    const fault = faults.add(request.body);
    return { ok: true, fault };
  });
  scope.get('/api/dev/faults', () => ({ ok: true, faults: faults.list() }));
  scope.delete('/api/dev/faults', () => {
    faults.clear();
    return { ok: true };
  });
}
