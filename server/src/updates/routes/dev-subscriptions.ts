/**
 * POST /api/dev/subscriptions {"machine_id": "...", "status": "active"|"inactive"} (dev only):
 * flips a machine's subscription so QA can test SUBSCRIPTION_INACTIVE on an existing key.
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../http/http-error.js';
import { bodyObject } from '../../http/json-body.js';
import { declareShapes, optionalObject, refuseUndeclared } from '../../http/route-schema.js';
import type { MachineKeys } from '../machine-keys.js';

const SUBSCRIPTION_SHAPES = declareShapes({
  body: optionalObject(
    {
      machine_id: { type: 'string', minLength: 1, maxLength: 100 },
      status: { enum: ['active', 'inactive'] },
    },
    false,
  ),
});

export function registerDevSubscriptions(scope: FastifyInstance, keys: MachineKeys): void {
  scope.post('/api/dev/subscriptions', SUBSCRIPTION_SHAPES, async (request) => {
    const body = bodyObject(request.body);
    const { machine_id: id, status } = body;
    if (typeof id !== 'string' || id.length === 0 || id.length > 100) {
      throw new HttpError(400, 'INVALID_MACHINE_ID', 'machine_id must be a string');
    }
    if (status !== 'active' && status !== 'inactive') {
      throw new HttpError(400, 'INVALID_SUBSCRIPTION', 'status must be "active" or "inactive"');
    }
    refuseUndeclared(request);
    const record = await keys.setSubscription(id, status);
    return {
      ok: true,
      machine_id: record.machine_id,
      subscription: { status: record.status, expires_at: record.expires_at },
    };
  });
}
