/**
 * The code store: 256-bit codes, atomic claim, bounded memory.
 */
import { expect, it } from 'vitest';
import type { CodeBinding } from '#server/oauth/grants/code-store.js';
import { CodeStore } from '#server/oauth/grants/code-store.js';
import { createRandom } from '#server/platform/random.js';

const binding: CodeBinding = {
  clientId: 'c',
  redirectUri: 'http://127.0.0.1:1/cb',
  codeChallenge: undefined,
  nonce: undefined,
  scope: 'openid',
  subject: 's',
  authTimeSec: 0,
};

it('issues 256-bit base64url codes that expire after the TTL', () => {
  const store = new CodeStore(createRandom(1), 60_000, 10);
  const { code, expiresAtMs } = store.issue(binding, 1000);
  expect(Buffer.from(code, 'base64url')).toHaveLength(32);
  expect(expiresAtMs).toBe(61_000);
});

it('T-19 claim is a compare-and-set: only the first claim wins', () => {
  const store = new CodeStore(createRandom(1), 60_000, 10);
  const rec = store.get(store.issue(binding, 0).code);
  if (rec === undefined) throw new Error('code not stored');
  expect(store.claim(rec, 'g1', 1)).toBe(true);
  expect(store.claim(rec, 'g2', 1)).toBe(false);
  expect(rec.grantId).toBe('g1');
});

it('stays within maxCodes: expired records go first, then the oldest', () => {
  const store = new CodeStore(createRandom(1), 60_000, 3);
  const first = store.issue(binding, 0).code;
  store.issue(binding, 1);
  store.issue(binding, 2);
  store.issue(binding, 70_000); // the first three expired: all pruned
  expect(store.size).toBe(1);
  expect(store.get(first)).toBeUndefined();
  const a = store.issue(binding, 70_001).code;
  store.issue(binding, 70_002);
  store.issue(binding, 70_003); // full of live codes: the oldest is evicted
  expect(store.size).toBe(3);
  expect(store.get(a)).toBeDefined();
});
