import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { startServer } from '#server/compose/start-server.js';
import { UpdateError } from '#core/errors.js';
import {
  chooseRegistry,
  DEMO_LABEL,
  DEMO_EXPIRES_IN_S,
  DEMO_RELEASE,
  demoReleaseToPublish,
  type DemoServer,
  type FirstRunDeps,
} from '#app/registry/first-run.js';
import { codeOfAsync } from '#test/expect-code.js';
const codeOf = (p: Promise<unknown>): Promise<string | undefined> => codeOfAsync(p, UpdateError);

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);

function fakeServer(stored?: {
  registry_version: string;
  expiresAtMs: number;
}): DemoServer & { published: unknown[]; closed: number } {
  const server = {
    url: 'http://127.0.0.1:4100',
    nodePubkey: KEY_A,
    published: [] as unknown[],
    closed: 0,
    updates: {
      currentRelease: () => (stored === undefined ? undefined : { manifest: stored }),
    },
    publish(release: unknown) {
      server.published.push(release);
      return Promise.resolve();
    },
    close() {
      server.closed += 1;
      return Promise.resolve();
    },
  };
  return server;
}

function mintFetch(status = 200, body: unknown = { ok: true, machine_key: 'mk_demo' }) {
  return vi.fn((_url: URL | RequestInfo, _init?: RequestInit) =>
    Promise.resolve(new Response(JSON.stringify(body), { status })),
  );
}

function deps(overrides: Partial<FirstRunDeps>): FirstRunDeps {
  return {
    settings: { baseUrl: '', pinnedKeys: [] },
    readBundledKey: () => Promise.resolve(null),
    secrets: { load: () => 'mk_stored', save: () => true },
    startDemoServer: () => Promise.reject(new Error('demo must not start')),
    fetch: vi.fn(() => Promise.reject(new Error('no network expected'))),
    ...overrides,
  };
}

describe('a registry from the settings with a kept trusted root', () => {
  it('starts trust from the kept root, before a shipped one, and needs no pinned key', async () => {
    const kept = new Uint8Array([1, 2, 3]);
    const shipped = vi.fn(() => Promise.resolve(new Uint8Array([9])));
    const choice = await chooseRegistry(
      deps({
        settings: { baseUrl: 'https://updates.example.com', pinnedKeys: [], trustedRoot: kept },
        readTrustedRoot: shipped,
      }),
    );
    expect(choice).toMatchObject({ pubkeys: [], trustedRoot: kept, machineKey: 'mk_stored' });
    expect(shipped).not.toHaveBeenCalled();
  });
});

describe('first-run demo wiring', () => {
  it('with nothing configured, starts the demo server, publishes the demo release, mints a key and pins the in-process key', async () => {
    const server = fakeServer();
    const fetch = mintFetch();
    const choice = await chooseRegistry(
      deps({ startDemoServer: () => Promise.resolve(server), fetch }),
    );
    expect(choice).toMatchObject({
      baseUrl: server.url,
      pubkeys: [KEY_A],
      machineKey: 'mk_demo',
      label: DEMO_LABEL,
    });
    expect(choice.demo).toBe(server);
    expect(server.published).toEqual([{ ...DEMO_RELEASE, expires_in_s: DEMO_EXPIRES_IN_S }]);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect((url as URL).href).toBe('http://127.0.0.1:4100/api/demo-key/mint');
    expect(init?.method).toBe('POST');
  });

  it('a later start over the persistent demo data does not re-publish the stored release', async () => {
    const now = Date.UTC(2026, 0, 1);
    const server = fakeServer({ registry_version: '1.0.0', expiresAtMs: now + 200 * 86_400_000 });
    const choice = await chooseRegistry(
      deps({
        startDemoServer: () => Promise.resolve(server),
        fetch: mintFetch(),
        nowMs: () => now,
      }),
    );
    expect(choice.label).toBe(DEMO_LABEL);
    expect(server.published).toEqual([]);
  });

  it('re-issues a demo release near expiry as the next patch version', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(
      demoReleaseToPublish({ registry_version: '1.0.3', expiresAtMs: now + 86_400_000 }, now),
    ).toMatchObject({ registry_version: '1.0.4', artifacts: DEMO_RELEASE.artifacts });
    expect(demoReleaseToPublish({ registry_version: '0.0.0', expiresAtMs: now + 1e12 }, now)).toBe(
      DEMO_RELEASE,
    );
    expect(demoReleaseToPublish(undefined, now)).toBe(DEMO_RELEASE);
  });

  it('labels the demo "Demo registry"', () => {
    expect(DEMO_LABEL).toBe('Demo registry');
  });

  it('closes the demo server and refuses when minting fails', async () => {
    const server = fakeServer();
    const fetch = mintFetch(401, { ok: false, code: 'NOPE' });
    const code = await codeOf(
      chooseRegistry(deps({ startDemoServer: () => Promise.resolve(server), fetch })),
    );
    expect(code).toBe('HTTP_STATUS');
    expect(server.closed).toBe(1);
  });

  it('refuses (IO) when the demo server cannot start, e.g. over a damaged data directory', async () => {
    // A typed refusal keeps the tray app up showing the code; a bare Error would end the app.
    const code = await codeOf(
      chooseRegistry(
        deps({ startDemoServer: () => Promise.reject(new Error('node key file is corrupt')) }),
      ),
    );
    expect(code).toBe('IO');
  });

  it('says why the demo server could not start (the data directory is a file)', async () => {
    const cause = Object.assign(new Error("ENOTDIR: not a directory, mkdir '/d/demo-registry'"), {
      code: 'ENOTDIR',
      path: '/d/demo-registry',
    });
    await expect(
      chooseRegistry(deps({ startDemoServer: () => Promise.reject(cause) })),
    ).rejects.toMatchObject({
      code: 'IO',
      message: `The demo registry could not start. ${cause.message}`,
      details: { errno: 'ENOTDIR', path: '/d/demo-registry' },
    });
  });

  it('closes the demo server and refuses (HTTP_STATUS) when the mint answer is not JSON', async () => {
    const server = fakeServer();
    const fetch = vi.fn(() => Promise.resolve(new Response('<html>oops</html>', { status: 502 })));
    const code = await codeOf(
      chooseRegistry(deps({ startDemoServer: () => Promise.resolve(server), fetch })),
    );
    expect(code).toBe('HTTP_STATUS');
    expect(server.closed).toBe(1);
  });

  it('closes the demo server and refuses (IO) when publishing the demo release fails', async () => {
    const server = fakeServer();
    server.publish = () => Promise.reject(new Error('disk full'));
    const code = await codeOf(
      chooseRegistry(deps({ startDemoServer: () => Promise.resolve(server), fetch: mintFetch() })),
    );
    expect(code).toBe('IO');
    expect(server.closed).toBe(1);
  });

  it('closes the demo server and refuses (NETWORK) when the mint request fails', async () => {
    const server = fakeServer();
    const fetch = vi.fn(() => Promise.reject(new TypeError('fetch failed')));
    const code = await codeOf(
      chooseRegistry(deps({ startDemoServer: () => Promise.resolve(server), fetch })),
    );
    expect(code).toBe('NETWORK');
    expect(server.closed).toBe(1);
  });

  it('with a configured URL and pinned keys in settings, uses them and never touches the network', async () => {
    const fetch = vi.fn();
    const startDemoServer = vi.fn();
    const choice = await chooseRegistry(
      deps({
        settings: { baseUrl: 'https://updates.example.com/', pinnedKeys: [KEY_B] },
        fetch,
        startDemoServer,
      }),
    );
    expect(choice).toEqual({
      baseUrl: 'https://updates.example.com/',
      pubkeys: [KEY_B],
      machineKey: 'mk_stored',
      label: 'updates.example.com',
      demo: null,
      trustedRoot: null,
    });
    expect(fetch).not.toHaveBeenCalled();
    expect(startDemoServer).not.toHaveBeenCalled();
  });

  it('with nothing configured and a shipped registry.json, uses it instead of the demo', async () => {
    const startDemoServer = vi.fn();
    const choice = await chooseRegistry(
      deps({
        readShippedRegistry: () =>
          Promise.resolve({ baseUrl: 'https://shipped.example', pinnedKeys: [KEY_B] }),
        startDemoServer,
      }),
    );
    expect(choice).toMatchObject({
      baseUrl: 'https://shipped.example',
      pubkeys: [KEY_B],
      label: 'shipped.example',
      demo: null,
    });
    expect(startDemoServer).not.toHaveBeenCalled();
  });

  it('a registry chosen in the settings wins over the shipped one', async () => {
    const readShippedRegistry = vi.fn(() =>
      Promise.resolve({ baseUrl: 'https://shipped.example', pinnedKeys: [KEY_B] }),
    );
    const choice = await chooseRegistry(
      deps({
        settings: { baseUrl: 'https://mine.example', pinnedKeys: [KEY_A] },
        readShippedRegistry,
      }),
    );
    expect(choice).toMatchObject({ baseUrl: 'https://mine.example', pubkeys: [KEY_A] });
    expect(readShippedRegistry).not.toHaveBeenCalled();
  });

  it('a broken shipped registry.json refuses (CONFIG_INVALID) and never starts the demo', async () => {
    const startDemoServer = vi.fn();
    const code = await codeOf(
      chooseRegistry(
        deps({
          readShippedRegistry: () =>
            Promise.reject(new UpdateError('CONFIG_INVALID', 'registry.json is invalid')),
          startDemoServer,
        }),
      ),
    );
    expect(code).toBe('CONFIG_INVALID');
    expect(startDemoServer).not.toHaveBeenCalled();
  });

  it('with a configured URL and no key in settings, pins the key shipped in resources/', async () => {
    const fetch = vi.fn();
    const choice = await chooseRegistry(
      deps({
        settings: { baseUrl: 'https://updates.example.com', pinnedKeys: [] },
        readBundledKey: () => Promise.resolve(`${KEY_B}\n`),
        fetch,
      }),
    );
    expect(choice.pubkeys).toEqual([KEY_B]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses a configured URL without any pinned key (NO_PINNED_KEY), never fetching one', async () => {
    const fetch = vi.fn();
    const code = await codeOf(
      chooseRegistry(deps({ settings: { baseUrl: 'https://u.example', pinnedKeys: [] }, fetch })),
    );
    expect(code).toBe('NO_PINNED_KEY');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('takes a shipped TUF root as the anchor when no key is pinned', async () => {
    const root = new TextEncoder().encode('{"signed":{}}');
    const asked: (string | undefined)[] = [];
    const choice = await chooseRegistry(
      deps({
        readShippedRegistry: () =>
          Promise.resolve({ baseUrl: 'https://u.example', pinnedKeys: [], trustedRoot: 'r.json' }),
        readTrustedRoot: (name) => {
          asked.push(name);
          return Promise.resolve(root);
        },
      }),
    );
    expect(asked).toEqual(['r.json']);
    expect(choice).toMatchObject({ baseUrl: 'https://u.example', pubkeys: [], trustedRoot: root });
  });

  it('refuses a malformed pinned key (CONFIG_INVALID)', async () => {
    const code = await codeOf(
      chooseRegistry(deps({ settings: { baseUrl: 'https://u.example', pinnedKeys: ['ABC'] } })),
    );
    expect(code).toBe('CONFIG_INVALID');
  });

  it('refuses a configured registry without a stored machine key (CONFIG_INVALID)', async () => {
    const code = await codeOf(
      chooseRegistry(
        deps({
          settings: { baseUrl: 'https://u.example', pinnedKeys: [KEY_A] },
          secrets: { load: () => null, save: () => true },
        }),
      ),
    );
    expect(code).toBe('CONFIG_INVALID');
  });

  it('refuses a plain-http registry on another machine (CONFIG_INVALID): the machine key would travel in clear', async () => {
    const fetch = vi.fn();
    const code = await codeOf(
      chooseRegistry(
        deps({ settings: { baseUrl: 'http://updates.example.com', pinnedKeys: [KEY_A] }, fetch }),
      ),
    );
    expect(code).toBe('CONFIG_INVALID');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('accepts plain http on this machine only (loopback)', async () => {
    for (const baseUrl of ['http://127.0.0.1:4100', 'http://localhost:4100', 'http://[::1]:4100']) {
      const choice = await chooseRegistry(deps({ settings: { baseUrl, pinnedKeys: [KEY_A] } }));
      expect(choice.baseUrl).toBe(baseUrl);
    }
  });

  it('refuses a registry URL that is not http(s) (CONFIG_INVALID)', async () => {
    const code = await codeOf(
      chooseRegistry(deps({ settings: { baseUrl: 'file:///etc/updates', pinnedKeys: [KEY_A] } })),
    );
    expect(code).toBe('CONFIG_INVALID');
  });

  it('refuses a base URL that is not a URL (CONFIG_INVALID)', async () => {
    const code = await codeOf(
      chooseRegistry(deps({ settings: { baseUrl: 'updates example', pinnedKeys: [KEY_A] } })),
    );
    expect(code).toBe('CONFIG_INVALID');
  });
});

describe('first-run demo wiring with the real companion server', () => {
  it('starts twice over one persistent data directory, pinning the same key both times', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'first-run-demo-'));
    try {
      const start = () =>
        chooseRegistry({
          settings: { baseUrl: '', pinnedKeys: [] },
          readBundledKey: () => Promise.resolve(null),
          secrets: { load: () => null, save: () => false },
          startDemoServer: () => startServer({ dataDir, simulate: false }),
        });
      const first = await start();
      await first.demo?.close();
      const second = await start();
      await second.demo?.close();
      expect(second.pubkeys).toEqual(first.pubkeys);
      expect(second.machineKey).not.toBe('');
      expect(second.label).toBe(DEMO_LABEL);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
