/**
 * Dev-only chain routes (issue 4, Model), registered with --dev: POST /api/dev/machines and
 * POST /api/dev/transitions. Refusals use the service's error body (interface §2) with a stable
 * code: 400 for malformed input, 404 UNKNOWN_MACHINE for an unknown machine_id. Body-parser
 * refusals (bad JSON, media type, size) are left to the server's global error handler.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorBody } from '../../../src/protocol/index.js';
import { ChainError } from '../chain/chain-error.js';
import type { MachineResult, TransitionResult } from '../chain/chain-state.js';
import type { TransitionInput } from '../chain/dev-input.js';
import { parseMachineInput, parseTransitionInput } from '../chain/dev-input.js';
import type { MachineInput } from '../chain/machine-registry.js';

export interface DevChainTarget {
  addMachine(input: MachineInput): MachineResult;
  addTransitions(input: TransitionInput): TransitionResult;
}

/** Registers the chain's dev routes. */
export function registerDevChain(app: FastifyInstance, target: DevChainTarget): void {
  // 201 when the machine is new, 200 when an existing one was updated (upsert).
  app.post('/api/dev/machines', (request, reply) =>
    answer(reply, () => {
      const machine = target.addMachine(parseMachineInput(request.body));
      return { status: machine.created ? 201 : 200, body: { ok: true, machine } };
    }),
  );

  app.post('/api/dev/transitions', (request, reply) =>
    answer(reply, () => {
      const recorded = target.addTransitions(parseTransitionInput(request.body));
      return { status: 200, body: { ok: true, ...recorded } };
    }),
  );
}

/** Runs `work`, turning a ChainError into its error body; anything else is a real failure. */
function answer(
  reply: FastifyReply,
  work: () => { status: number; body: Record<string, unknown> },
): FastifyReply {
  try {
    const { status, body } = work();
    return reply.code(status).send(body);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    return reply
      .code(error.statusCode)
      .type('application/json; charset=utf-8')
      .send(errorBody(error.code, error.message));
  }
}
