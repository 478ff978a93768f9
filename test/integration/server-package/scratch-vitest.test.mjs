// A QA team's vitest file with the package's helpers (verified-updater-server/vitest), run by
// `npx vitest run` inside the scratch project. Plain JavaScript, public entries only.
import { describe, expect, it } from 'vitest';
import { test, useServer } from 'verified-updater-server/vitest';

describe('useServer(): one server for the file', () => {
  const server = useServer({
    config: { machines: [{ machine_key: `mk_${'Q'.repeat(43)}`, machine_id: 'm_fixed' }] },
  });
  const urls = [];

  it('starts before the tests, with the config in effect', async () => {
    urls.push(server.url);
    const res = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer mk_${'Q'.repeat(43)}` },
    });
    expect(res.status).toBe(200);
  });

  it('is the same server in the next test', () => {
    expect(server.url).toBe(urls[0]);
  });
});

describe("useServer({}, { per: 'test' }): a fresh server per test", () => {
  const server = useServer({}, { per: 'test' });
  const urls = [];
  for (const n of [1, 2]) {
    it(`test ${n}`, async () => {
      urls.push(server.url);
      expect(new Set(urls).size).toBe(n);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    });
  }
});

test('the `server` fixture of the extended test', async ({ server }) => {
  const { machine_key } = await server.updates.mintMachineKey();
  expect(machine_key).toMatch(/^mk_/);
});
