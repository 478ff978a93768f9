/**
 * The shapes a route takes (params, query string, body), declared as Fastify route `schema:`
 * (docs/ARCHITECTURE.md §Server, "Route shapes"). Fastify checks them before the handler but
 * only notes the result (`attachValidation`): each route still answers every refusal itself,
 * with the code and body docs/PROTOCOL.md §1 gives it and after its earlier checks (the bearer
 * comes first, so an unauthenticated caller learns nothing about its input).
 *
 * A declared shape is never stricter than the route's own parsing; if it ever is, the request
 * is refused anyway (fail closed) with Fastify's validation code, `INVALID_REQUEST`.
 *
 * @example scope.get(PATH, declareShapes({ querystring: NONCE_QUERY }), handler)
 */
import type { FastifyRequest, FastifySchema } from 'fastify';
import { HttpError } from './http-error.js';

/** JSON Schema of one part of a request, as Fastify's Ajv reads it. */
export type Shape = Readonly<Record<string, unknown>>;

export interface DeclaredShapes {
  readonly schema: FastifySchema;
  readonly attachValidation: true;
}

/** Route options declaring `schema` with the result left to the handler. */
export function declareShapes(schema: FastifySchema): DeclaredShapes {
  return { schema, attachValidation: true };
}

/**
 * Ajv options for the whole app, required wherever these routes are registered (buildApp and
 * the test harnesses): a declared shape only checks, it never rewrites the input. Fastify's
 * defaults coerce types, fill defaults and drop fields an `additionalProperties: false` refuses,
 * which would hide from a route the very input it refuses.
 */
export const CHECK_ONLY_AJV = {
  customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false },
} as const;

/** Called once the route's own parsing accepted the request, before it acts on it. */
export function refuseUndeclared(request: FastifyRequest): void {
  const error = request.validationError;
  if (error === undefined) return;
  throw new HttpError(
    400,
    'INVALID_REQUEST',
    `the request does not fit the route: ${error.message}`,
    {
      cause: error,
    },
  );
}

/** An optional JSON object body (absent reaches Ajv as null). */
export function optionalObject(properties: Shape, strict: boolean): Shape {
  return {
    type: ['object', 'null'],
    properties,
    ...(strict ? { additionalProperties: false } : {}),
  };
}
