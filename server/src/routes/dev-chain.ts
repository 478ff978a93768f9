/**
 * Dev-only chain routes (issue 4, Model), registered with --dev: POST /api/dev/machines and
 * POST /api/dev/transitions. Refusals use the service's error body (interface §2) with a stable
 * code: 400 for malformed input, 404 UNKNOWN_MACHINE for an unknown machine_id.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../../../src/protocol/error-body.js';
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
  const errorHandler = (
    error: FastifyError,
    _request: FastifyRequest,
    reply: FastifyReply,
  ): void => {
    if (error instanceof ChainError) {
      void reply.code(error.statusCode).send(errorBody(error.code, error.message));
      return;
    }
    // Body parser refusals (bad JSON, media type, size) keep their 4xx status and our body.
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        status === 413
          ? 'BODY_TOO_LARGE'
          : status === 415
            ? 'UNSUPPORTED_MEDIA_TYPE'
            : 'INVALID_BODY';
      void reply.code(status).send(errorBody(code, error.message));
      return;
    }
    void reply.code(500).send(errorBody('INTERNAL', 'internal error'));
  };

  app.post('/api/dev/machines', { errorHandler }, (request, reply) => {
    const machine = target.addMachine(parseMachineInput(request.body));
    return reply.code(machine.created ? 201 : 200).send({ ok: true, machine });
  });

  app.post('/api/dev/transitions', { errorHandler }, (request, reply) => {
    const recorded = target.addTransitions(parseTransitionInput(request.body));
    return reply.code(200).send({ ok: true, ...recorded });
  });
}
