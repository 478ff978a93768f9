/**
 * Dev-only chain routes (docs/PROTOCOL.md §5, Dev API), registered with --dev: POST /api/dev/machines and
 * POST /api/dev/transitions. Refusals use the service's error body (docs/INTERFACE.md §2) with a stable
 * code: 400 for malformed input, 404 UNKNOWN_MACHINE for an unknown machine_id. Body-parser
 * refusals (bad JSON, media type, size) are left to the server's global error handler.
 */
import type { FastifyInstance } from 'fastify';
import type { MachineResult, TransitionResult } from '../chain-state.js';
import type { TransitionInput } from '../dev-input.js';
import { parseMachineInput, parseTransitionInput } from '../dev-input.js';
import type { MachineInput } from '../machine-registry.js';

export interface DevChainTarget {
  addMachine(input: MachineInput): MachineResult;
  addTransitions(input: TransitionInput): TransitionResult;
}

/** Registers the chain's dev routes; a ChainError goes to the global error handler. */
export function registerDevChain(app: FastifyInstance, target: DevChainTarget): void {
  // 201 when the machine is new, 200 when an existing one was updated (upsert).
  app.post('/api/dev/machines', (request, reply) => {
    const machine = target.addMachine(parseMachineInput(request.body));
    return reply.code(machine.created ? 201 : 200).send({ ok: true, machine });
  });

  app.post('/api/dev/transitions', (request, reply) => {
    const recorded = target.addTransitions(parseTransitionInput(request.body));
    return reply.code(200).send({ ok: true, ...recorded });
  });
}
