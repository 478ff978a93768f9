/**
 * Client registrations and redirect URI matching (RFC 8252 §7.3, RFC 9700 §4.1.3).
 */
import { expect, it } from 'vitest';
import {
  ClientRegistrationError,
  ClientRegistry,
  isRegisteredRedirect,
  MAX_CLIENTS,
  toClient,
} from '#server/oauth/clients.js';

const loopback = toClient({ client_id: 'app', loopback_redirect_paths: ['/callback'] });

it.each([
  ['http://127.0.0.1:1/callback', true],
  ['http://127.0.0.1:65535/callback', true],
  ['http://127.0.0.1:65536/callback', false],
  ['http://127.0.0.1/callback', false],
  ['http://[::1]:8080/callback', false],
  ['http://127.0.0.1:8080/callback/', false],
  ['http://127.0.0.1:8080/callback#f', false],
])('loopback redirect %s registered: %s', (uri, expected) => {
  expect(isRegisteredRedirect(loopback, uri)).toBe(expected);
});

it('exact redirect URIs match by string only', () => {
  const c = toClient({ client_id: 'web', redirect_uris: ['https://a.test/cb'] });
  expect(isRegisteredRedirect(c, 'https://a.test/cb')).toBe(true);
  expect(isRegisteredRedirect(c, 'https://A.test/cb')).toBe(false);
  expect(isRegisteredRedirect(c, 'https://a.test/cb?x=1')).toBe(false);
});

it.each([
  ['no redirect URI', { client_id: 'x' }],
  ['a space in client_id', { client_id: 'a b', redirect_uris: ['https://a.test/cb'] }],
  ['a relative redirect URI', { client_id: 'x', redirect_uris: ['/cb'] }],
  [
    'a scope with a quote',
    { client_id: 'x', redirect_uris: ['https://a.test/cb'], scopes: ['a"b'] },
  ],
  ['a loopback path without /', { client_id: 'x', loopback_redirect_paths: ['cb'] }],
])('refuses a registration with %s', (_what, reg) => {
  expect(() => toClient(reg)).toThrow(ClientRegistrationError);
});

it(`holds at most ${MAX_CLIENTS} clients`, () => {
  const r = new ClientRegistry();
  for (let i = 0; i < MAX_CLIENTS; i++) {
    r.register({ client_id: `c${i}`, redirect_uris: ['https://a.test/cb'] });
  }
  expect(() => r.register({ client_id: 'one-more', redirect_uris: ['https://a.test/cb'] })).toThrow(
    ClientRegistrationError,
  );
  // Replacing an existing client is still allowed.
  expect(
    r.register({ client_id: 'c0', redirect_uris: ['https://b.test/cb'] }).redirectUris,
  ).toEqual(['https://b.test/cb']);
});
