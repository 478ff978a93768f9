/**
 * POST /api/demo-key/mint: optional JSON body {"subscription": "active"|"inactive",
 * "label": "..."}. Answers the new machine key once (docs/PROTOCOL.md §3).
 */
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../http/http-error.js';
import { bodyObject } from '../../http/json-body.js';
import { declareShapes, optionalObject, refuseUndeclared } from '../../http/route-schema.js';
import { MAX_LABEL_CHARS, type MachineKeys, type SubscriptionStatus } from '../machine-keys.js';

// eslint-disable-next-line no-control-regex -- control characters are what a label may not hold
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Validates the mint body; unknown fields are refused rather than guessed at. */
export const MINT_PATH = '/api/demo-key/mint';

export function parseMintBody(body: unknown): { status: SubscriptionStatus; label: string | null } {
  const o = bodyObject(body);
  for (const key of Object.keys(o)) {
    if (key !== 'subscription' && key !== 'label') {
      throw new HttpError(400, 'UNKNOWN_FIELD', `unknown field ${JSON.stringify(key)}`);
    }
  }
  const status = o['subscription'] === undefined ? 'active' : o['subscription'];
  if (status !== 'active' && status !== 'inactive') {
    throw new HttpError(400, 'INVALID_SUBSCRIPTION', 'subscription must be "active" or "inactive"');
  }
  // An absent label is none; a present one (even null) must be a proper string.
  const label = o['label'];
  if (label === undefined) return { status, label: null };
  if (
    typeof label !== 'string' ||
    label.length === 0 ||
    label.length > MAX_LABEL_CHARS ||
    CONTROL.test(label)
  ) {
    throw new HttpError(
      400,
      'INVALID_LABEL',
      `label must be 1 to ${MAX_LABEL_CHARS} characters without control characters`,
    );
  }
  return { status, label };
}

const MINT_SHAPES = declareShapes({
  body: optionalObject(
    {
      subscription: { enum: ['active', 'inactive'] },
      label: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_LABEL_CHARS,
        pattern: '^[^\\u0000-\\u001f\\u007f]*$',
      },
    },
    true,
  ),
});

export function registerDemoKeyMint(scope: FastifyInstance, keys: MachineKeys): void {
  scope.post(MINT_PATH, MINT_SHAPES, async (request, reply) => {
    const { status, label } = parseMintBody(request.body);
    refuseUndeclared(request);
    const minted = await keys.mint(status, label);
    void reply.header('cache-control', 'no-store');
    return { ok: true, ...minted };
  });
}
