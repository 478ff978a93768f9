/**
 * The server's one error base (docs/ARCHITECTURE.md §Server, "The error path"): every refusal
 * class is a ServerError with a code from src/protocol's table, and the global handler answers
 * each one with its own status, headers and body.
 */
import { describe, expect, it } from 'vitest';
import { isServerErrorCode } from '#protocol';
import { ChainError } from '#server/chain/chain-error.js';
import { mapError } from '#server/http/error-handler.js';
import { HttpError } from '#server/http/http-error.js';
import { UsageError } from '#server/cli/main-args.js';
import { ClientRegistrationError } from '#server/oauth/clients.js';
import { IdTokenKeyError } from '#server/oauth/tokens/id-token.js';
import { OAuthError } from '#server/oauth/oauth-error.js';
import { errorClass, ServerError } from '#server/server-error.js';
import { NodeKeyError } from '#server/updates/keys/node-key.js';
import { ReleaseStoreError } from '#server/updates/publish/release-store.js';

describe('ServerError', () => {
  it('carries a code, a status, headers and the cause, and builds the error body', () => {
    const cause = new Error('inner');
    const e = new ServerError('NO_RELEASE', 'nothing\nis published', {
      status: 404,
      headers: { 'x-a': '1' },
      cause,
    });
    expect([e.code, e.statusCode, e.headers, e.cause]).toEqual([
      'NO_RELEASE',
      404,
      { 'x-a': '1' },
      cause,
    ]);
    expect(e.body()).toEqual({ ok: false, error: 'nothing is published', code: 'NO_RELEASE' });
  });

  it('has status 500 when it is not meant for a client', () => {
    expect(new ServerError('FAILED', 'x').statusCode).toBe(500);
  });
});

describe('every server error extends the one base', () => {
  const cases: [string, ServerError, string, string][] = [
    [
      'HttpError',
      new HttpError(409, 'VERSION_NOT_INCREASING', 'm'),
      'HttpError',
      'VERSION_NOT_INCREASING',
    ],
    ['ChainError', new ChainError('UNKNOWN_MACHINE', 'm'), 'ChainError', 'UNKNOWN_MACHINE'],
    [
      'OAuthError',
      new OAuthError('invalid_grant', 'CODE_REUSED', 'm'),
      'OAuthError',
      'CODE_REUSED',
    ],
    ['NodeKeyError', new NodeKeyError('m'), 'NodeKeyError', 'NODE_KEY_INVALID'],
    ['ReleaseStoreError', new ReleaseStoreError('m'), 'ReleaseStoreError', 'RELEASE_STORE_INVALID'],
    [
      'ClientRegistrationError',
      new ClientRegistrationError('m'),
      'ClientRegistrationError',
      'CLIENT_REGISTRATION_INVALID',
    ],
    ['IdTokenKeyError', new IdTokenKeyError('m'), 'IdTokenKeyError', 'CLIENT_SECRET_TOO_SHORT'],
    ['UsageError', new UsageError('m'), 'UsageError', 'USAGE'],
  ];
  for (const [what, error, name, code] of cases) {
    it(`${what} is a ServerError named ${name} with code ${code}`, () => {
      expect(error).toBeInstanceOf(ServerError);
      expect(error).toBeInstanceOf(Error);
      expect([error.name, error.code]).toEqual([name, code]);
      expect(isServerErrorCode(error.code)).toBe(true);
    });
  }
});

describe('errorClass (one fixed code, as Fastify createError)', () => {
  const Demo = errorClass('DemoError', 'FAILED');
  it('makes a named class whose instances carry the code and the cause', () => {
    const cause = new Error('inner');
    const e = new Demo('went wrong', { cause });
    expect(e).toBeInstanceOf(Demo);
    expect([Demo.name, e.name, e.code, e.message, e.cause]).toEqual([
      'DemoError',
      'DemoError',
      'FAILED',
      'went wrong',
      cause,
    ]);
    expect(String(e.stack)).toContain('DemoError: went wrong');
  });
});

describe('the error path: mapError over the base', () => {
  it('answers a ChainError with its own status and code', () => {
    expect(mapError(new ChainError('UNKNOWN_MACHINE', 'no such machine'))).toEqual({
      status: 404,
      code: 'UNKNOWN_MACHINE',
      message: 'no such machine',
    });
  });

  it('answers a start-up error that reaches a route as 500 INTERNAL, without its message', () => {
    expect(mapError(new NodeKeyError('/secret/path/node-key.json is unreadable'))).toEqual({
      status: 500,
      code: 'INTERNAL',
      message: 'internal error',
    });
  });
});

describe('OAuthError on the base', () => {
  it('is never cached and keeps the RFC 6749 body', () => {
    const e = new OAuthError('invalid_grant', 'CODE_REUSED', 'the code was used');
    expect(e.statusCode).toBe(400);
    expect(e.headers).toEqual({ 'cache-control': 'no-store', pragma: 'no-cache' });
    expect(e.body()).toEqual({
      ok: false,
      error: 'invalid_grant',
      error_description: 'the code was used',
      code: 'CODE_REUSED',
    });
  });

  it('adds the Basic challenge only to a 401 for a client that used Basic', () => {
    const e = new OAuthError('invalid_client', 'CLIENT_SECRET_INVALID', 'm').withBasicChallenge();
    expect(e.statusCode).toBe(401);
    expect(e.headers['www-authenticate']).toBe('Basic realm="oauth", charset="UTF-8"');
    const plain = new OAuthError('invalid_client', 'CLIENT_AUTH_MISSING', 'm');
    expect(plain.headers['www-authenticate']).toBeUndefined();
  });
});
