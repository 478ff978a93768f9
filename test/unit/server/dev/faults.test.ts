import { afterEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { MAX_FAULTS } from '#server/dev/faults.js';
import { testApp } from '#test/server-harness.js';

let built: BuiltApp | undefined;
afterEach(async () => {
  await built?.app.close();
});

describe('Faults (in-process)', () => {
  it('refuses to arm a fault without --dev with 409 DEV_DISABLED', async () => {
    built = await testApp({ dev: false });
    const b = built;
    expect(() => b.faults.add({ route: '/healthz', status: 500 })).toThrow(
      expect.objectContaining({ code: 'DEV_DISABLED' }) as Error,
    );
  });

  it(`refuses more than ${MAX_FAULTS} armed faults with TOO_MANY_FAULTS`, async () => {
    built = await testApp({ dev: true });
    for (let i = 0; i < MAX_FAULTS; i++) built.faults.add({ route: '/healthz', delay_ms: 0 });
    const b = built;
    expect(() => b.faults.add({ route: '/healthz', delay_ms: 0 })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_FAULTS' }) as Error,
    );
  });

  it('fires faults for one route in the order they were armed', async () => {
    built = await testApp({ dev: true });
    built.faults.add({ route: '/healthz', status: 502 });
    built.faults.add({ route: '/healthz', status: 429, retry_after_s: 1 });
    const first = await built.app.inject({ method: 'GET', url: '/healthz' });
    const second = await built.app.inject({ method: 'GET', url: '/healthz' });
    expect([first.statusCode, second.statusCode]).toEqual([502, 429]);
    expect(first.headers['retry-after']).toBeUndefined();
    expect(built.faults.list()).toEqual([]);
  });

  it('never faults the dev API itself', async () => {
    built = await testApp({ dev: true });
    built.faults.add({ route: '/api/dev/reset', status: 500 });
    const res = await built.app.inject({ method: 'POST', url: '/api/dev/reset' });
    expect(res.statusCode).toBe(200);
  });

  it('refuses an unknown fault field with INVALID_FAULT', async () => {
    built = await testApp({ dev: true });
    const b = built;
    expect(() => b.faults.add({ route: '/healthz', status: 500, when: 'later' })).toThrow(
      expect.objectContaining({ code: 'INVALID_FAULT' }) as Error,
    );
  });
});
