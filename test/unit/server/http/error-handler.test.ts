import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { mapError } from '#server/http/error-handler.js';
import { HttpError } from '#server/http/http-error.js';
import { RouteTable } from '#server/http/route-table.js';

const fst = (code: string, statusCode?: number): Error =>
  Object.assign(new Error(`fastify says ${code}`), { code, statusCode });

describe('mapError: every thrown value becomes a status, a stable code and a safe message', () => {
  const table: [string, unknown, number, string][] = [
    [
      'an HttpError',
      new HttpError(409, 'VERSION_NOT_INCREASING', 'why'),
      409,
      'VERSION_NOT_INCREASING',
    ],
    ['a body over the limit', fst('FST_ERR_CTP_BODY_TOO_LARGE', 413), 413, 'BODY_TOO_LARGE'],
    [
      'an unsupported media type',
      fst('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['an empty JSON body', fst('FST_ERR_CTP_EMPTY_JSON_BODY', 400), 400, 'MALFORMED_JSON'],
    ['invalid JSON', fst('FST_ERR_CTP_INVALID_JSON_BODY', 400), 400, 'MALFORMED_JSON'],
    [
      'a wrong Content-Length',
      fst('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400),
      400,
      'BAD_CONTENT_LENGTH',
    ],
    ['an undecodable URL', fst('FST_ERR_BAD_URL', 400), 400, 'BAD_URL'],
    ['a schema validation error', fst('FST_ERR_VALIDATION', 400), 400, 'INVALID_REQUEST'],
    [
      'a SyntaxError from a parser',
      Object.assign(new SyntaxError('x'), { statusCode: 400 }),
      400,
      'MALFORMED_JSON',
    ],
    ['an unknown 4xx', fst('SOMETHING', 422), 422, 'BAD_REQUEST'],
    ['a plain Error', new Error('/home/secret path'), 500, 'INTERNAL'],
    ['a thrown string', 'oops', 500, 'INTERNAL'],
    ['a 5xx from a library', fst('X', 503), 500, 'INTERNAL'],
  ];
  for (const [what, error, status, code] of table) {
    it(`maps ${what} to ${status} ${code}`, () => {
      const mapped = mapError(error);
      expect([mapped.status, mapped.code]).toEqual([status, code]);
    });
  }

  it('never passes an internal message to the client', () => {
    expect(mapError(new Error('/home/secret path')).message).toBe('internal error');
  });

  it('truncates a long framework message to 300 characters', () => {
    const long = mapError(fst('SOMETHING', 400)).message;
    expect(long.length).toBeLessThanOrEqual(303);
    expect(
      mapError(Object.assign(new Error('x'.repeat(1000)), { statusCode: 400 })).message,
    ).toHaveLength(303);
  });
});

describe('RouteTable', () => {
  it('lists the methods of a literal and a parametrised path, and none for an unknown path', async () => {
    const app = Fastify();
    const table = new RouteTable();
    table.install(app);
    app.get('/a/:id', () => 'x');
    app.post('/a/:id', () => 'x');
    app.delete('/b', () => 'x');
    await app.ready();
    expect(table.allowedMethods('/a/42')).toEqual(['GET', 'HEAD', 'POST']);
    expect(table.allowedMethods('/b')).toEqual(['DELETE']);
    expect(table.allowedMethods('/a/42/x')).toEqual([]);
    expect(table.allowedMethods('/c')).toEqual([]);
    await app.close();
  });
});
