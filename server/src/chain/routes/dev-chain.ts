/**
 * Dev-only chain routes (docs/PROTOCOL.md §5, Dev API), registered with --dev: POST /api/dev/machines and
 * POST /api/dev/transitions. Refusals use the service's error body (docs/INTERFACE.md §2) with a stable
 * code: 400 for malformed input, 404 UNKNOWN_MACHINE for an unknown machine_id. Body-parser
 * refusals (bad JSON, media type, size) are left to the server's global error handler.
 */
import type { FastifyInstance } from 'fastify';
import type { MachineResult, TransitionResult } from '../chain-state.js';
import type { TransitionInput } from '../dev-input.js';
import { MAX_TRANSITIONS_PER_CALL, parseMachineInput, parseTransitionInput } from '../dev-input.js';
import type { MachineInput } from '../machine-registry.js';
import { declareShapes, refuseUndeclared } from '../../http/route-schema.js';

export interface DevChainTarget {
  addMachine(input: MachineInput): MachineResult;
  addTransitions(input: TransitionInput): TransitionResult;
}

const MACHINE_SHAPES = declareShapes({
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'visibility'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      visibility: { enum: ['public', 'private'] },
    },
  },
});

const TRANSITION_SHAPES = declareShapes({
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['machine_id', 'count'],
    properties: {
      machine_id: { type: 'string' },
      count: { type: 'integer', minimum: 1, maximum: MAX_TRANSITIONS_PER_CALL },
      unit: { type: 'integer' },
    },
  },
});

/** Registers the chain's dev routes; a ChainError goes to the global error handler. */
export function registerDevChain(app: FastifyInstance, target: DevChainTarget): void {
  // 201 when the machine is new, 200 when an existing one was updated (upsert).
  app.post('/api/dev/machines', MACHINE_SHAPES, (request, reply) => {
    const input = parseMachineInput(request.body);
    refuseUndeclared(request);
    const machine = target.addMachine(input);
    return reply.code(machine.created ? 201 : 200).send({ ok: true, machine });
  });

  app.post('/api/dev/transitions', TRANSITION_SHAPES, (request, reply) => {
    const input = parseTransitionInput(request.body);
    refuseUndeclared(request);
    const recorded = target.addTransitions(input);
    return reply.code(200).send({ ok: true, ...recorded });
  });
}
