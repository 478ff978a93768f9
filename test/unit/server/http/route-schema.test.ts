import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { installErrorHandlers } from '#server/http/error-handler.js';
import { HttpError } from '#server/http/http-error.js';
import {
  CHECK_ONLY_AJV,
  declareShapes,
  optionalObject,
  refuseUndeclared,
} from '#server/http/route-schema.js';
import { RouteTable } from '#server/http/route-table.js';

let app: FastifyInstance;
afterEach(async () => {
  await app.close();
});

/** A route whose own parser only refuses `name: "bad"`; its declared shape is stricter. */
function appWithRoute(): FastifyInstance {
  app = Fastify({ ajv: CHECK_ONLY_AJV });
  installErrorHandlers(app, new RouteTable());
  const shapes = declareShapes({
    body: optionalObject({ name: { type: 'string', maxLength: 3 }, n: { type: 'string' } }, true),
  });
  app.post('/thing', shapes, (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (body['name'] === 'bad') throw new HttpError(400, 'INVALID_NAME', 'bad name');
    refuseUndeclared(request);
    return { seen: body };
  });
  return app;
}

describe('declared route shapes', () => {
  it('leave the refusal to the route: its own code comes first', async () => {
    const res = await appWithRoute().inject({
      method: 'POST',
      url: '/thing',
      payload: { name: 'bad', extra: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_NAME' });
  });

  it('refuse what the route accepted but the shape does not (fail closed)', async () => {
    const res = await appWithRoute().inject({
      method: 'POST',
      url: '/thing',
      payload: { name: 'long' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
  });

  it('let an absent optional body through', async () => {
    const res = await appWithRoute().inject({ method: 'POST', url: '/thing' });
    expect(res.statusCode).toBe(200);
  });

  it('never rewrite the input: no coercion, no defaults, no dropped fields', async () => {
    app = Fastify({ ajv: CHECK_ONLY_AJV });
    const body = optionalObject(
      { n: { type: 'string' }, d: { type: 'string', default: 'x' } },
      true,
    );
    app.post('/raw', declareShapes({ body }), (request) => ({
      body: request.body,
      refused: request.validationError !== undefined,
    }));
    const res = await app.inject({ method: 'POST', url: '/raw', payload: { n: 5, other: true } });
    expect(res.json()).toEqual({ body: { n: 5, other: true }, refused: true });
  });
});
