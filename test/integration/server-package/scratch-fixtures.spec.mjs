// A QA team's Playwright tests with the package's fixtures (verified-updater-server/playwright),
// run by `npx playwright test` inside the scratch project. Plain JavaScript, public entries only.
import { test, expect } from 'verified-updater-server/playwright';

const seen = [];

test('`server` is a fresh server per test: a release published here', async ({ server }) => {
  await server.publish({ registry_version: '2.0.0', artifacts: [] });
  expect(server.updates.currentRelease()?.manifest.registry_version).toBe('2.0.0');
  seen.push(server.url);
});

test('`server` is a fresh server per test: is not there', async ({ server }) => {
  expect(server.updates.currentRelease()?.manifest.registry_version).toBe('0.0.0');
  expect(seen).not.toContain(server.url);
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
});

test.describe('one server per worker', () => {
  const urls = [];
  for (const n of [1, 2]) {
    test(`workerServer, test ${n}`, async ({ workerServer }) => {
      urls.push(workerServer.url);
      expect(new Set(urls).size).toBe(1);
    });
  }
});
