/**
 * The one way server tests POST a JSON body: `postJson` through `app.inject()`, `postJsonTo`
 * over a real port. `body` undefined sends no body (and no Content-Type: the routes whose body
 * is optional); a string is sent as it is (malformed JSON cases); anything else as JSON.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

function encode(body: unknown): { headers: Record<string, string>; payload?: string } {
  if (body === undefined) return { headers: {} };
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return { headers: { 'content-type': 'application/json' }, payload };
}

/** POSTs `body` to `url` of an app under `app.inject()`. */
export function postJson(
  app: FastifyInstance,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const encoded = encode(body);
  return app.inject({
    method: 'POST',
    url,
    headers: { ...encoded.headers, ...headers },
    ...(encoded.payload === undefined ? {} : { payload: encoded.payload }),
  });
}

/** POSTs `body` to an absolute URL of a listening server; the answer's status and JSON. */
export async function postJsonTo(
  url: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const encoded = encode(body);
  const res = await fetch(url, {
    method: 'POST',
    headers: encoded.headers,
    ...(encoded.payload === undefined ? {} : { body: encoded.payload }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
