/**
 * The grant store: revocation deletes the family, expiry on the injected clock, bounded memory.
 */
import { expect, it } from 'vitest';
import type { NewGrant } from '#server/oauth/grants/grant-store.js';
import { GrantStore } from '#server/oauth/grants/grant-store.js';
import { createRandom } from '#server/platform/random.js';

const grant = (expiresAtMs: number): NewGrant => ({
  clientId: 'c',
  subject: 's',
  scope: 'openid',
  authTimeSec: 0,
  nonce: undefined,
  refreshJti: 'r',
  expiresAtMs,
});

it('R-05 revoke removes the grant; revoking again is a no-op (R-07)', () => {
  const store = new GrantStore(createRandom(1), 10);
  const id = store.newId();
  store.add(id, grant(1000), 0);
  expect(store.get(id, 0)).toBeDefined();
  store.revoke(id);
  store.revoke(id);
  expect(store.get(id, 0)).toBeUndefined();
});

it('an expired grant is gone on the injected clock', () => {
  const store = new GrantStore(createRandom(1), 10);
  const id = store.newId();
  store.add(id, grant(1000), 0);
  expect(store.get(id, 999)).toBeDefined();
  expect(store.get(id, 1000)).toBeUndefined();
});

it('stays within maxGrants, evicting the oldest live grant first', () => {
  const store = new GrantStore(createRandom(1), 100);
  const ids = Array.from({ length: 101 }, () => store.newId());
  ids.forEach((id, i) => store.add(id, grant(10_000), i));
  expect(store.size).toBeLessThanOrEqual(100);
  expect(store.get(ids[0] ?? '', 200)).toBeUndefined();
  expect(store.get(ids[100] ?? '', 200)).toBeDefined();
});

it('token ids carry 256 bits and grant ids 128 bits', () => {
  const store = new GrantStore(createRandom(1), 10);
  expect(Buffer.from(store.newJti(), 'base64url')).toHaveLength(32);
  expect(Buffer.from(store.newId(), 'base64url')).toHaveLength(16);
});
