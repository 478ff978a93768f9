/**
 * Client authentication (RFC 6749 §2.3.1, docs/OAUTH.md §The rules, T-08/T-09), without HTTP.
 */
import { expect, it } from 'vitest';
import { authenticateClient, parseBasic } from '#server/oauth/client-auth.js';
import { ClientRegistry, defaultRegistrations } from '#server/oauth/clients.js';
import { OAuthError } from '#server/oauth/oauth-error.js';
import { basic, QA_SECRET } from '#test/oauth-context.js';

function registry(): ClientRegistry {
  const r = new ClientRegistry();
  for (const reg of defaultRegistrations(QA_SECRET)) r.register(reg);
  return r;
}

function refusal(fn: () => unknown): OAuthError {
  try {
    fn();
  } catch (err) {
    if (err instanceof OAuthError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

it('T-08 parseBasic form-url-decodes id and secret', () => {
  expect(parseBasic(basic('a b:c', 'p+q r%'))).toEqual({ id: 'a b:c', secret: 'p+q r%' });
});

it('T-08 parseBasic splits at the first colon only', () => {
  const header = `Basic ${Buffer.from('id:se:cret').toString('base64')}`;
  expect(parseBasic(header)).toEqual({ id: 'id', secret: 'se:cret' });
});

it.each([
  ['no colon', `Basic ${Buffer.from('nocolon').toString('base64')}`],
  ['an empty id', `Basic ${Buffer.from(':secret').toString('base64')}`],
  ['another scheme', 'Bearer abc'],
  ['bad percent-encoding', `Basic ${Buffer.from('%zz:x').toString('base64')}`],
])('T-08 malformed Basic (%s) is 401 invalid_client with a challenge', (_what, header) => {
  const err = refusal(() => parseBasic(header));
  expect(err).toMatchObject({ error: 'invalid_client', status: 401, basicChallenge: true });
});

it('T-08 Basic authenticates qa-web', () => {
  const auth = authenticateClient(registry(), basic('qa-web', QA_SECRET), {});
  expect(auth).toMatchObject({ method: 'client_secret_basic', client: { id: 'qa-web' } });
});

it('T-08 a public client cannot use Basic', () => {
  const err = refusal(() => authenticateClient(registry(), basic('desktop-app', 'x'), {}));
  expect(err).toMatchObject({ status: 401, code: 'CLIENT_SECRET_INVALID', basicChallenge: true });
});

it('T-09 a public client authenticates with client_id alone (method none)', () => {
  const auth = authenticateClient(registry(), undefined, { client_id: 'desktop-app' });
  expect(auth.method).toBe('none');
});

it('T-09 no client identification at all is 401 invalid_client', () => {
  const err = refusal(() => authenticateClient(registry(), undefined, {}));
  expect(err).toMatchObject({ status: 401, code: 'CLIENT_AUTH_MISSING', basicChallenge: false });
});
