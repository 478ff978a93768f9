import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { isUpdateError } from '../../../src/core/errors.js';
import {
  chooseRegistry,
  DEMO_LABEL,
  DEMO_RELEASE,
  type DemoServer,
  type FirstRunDeps,
} from '../../../src/main/first-run.js';

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);

function fakeServer(): DemoServer & { published: unknown[]; closed: number } {
  const server = {
    url: 'http://127.0.0.1:4100',
    nodePubkey: KEY_A,
    published: [] as unknown[],
    closed: 0,
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

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isUpdateError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

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
    expect(server.published).toEqual([DEMO_RELEASE]);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect((url as URL).href).toBe('http://127.0.0.1:4100/api/demo-key/mint');
    expect(init?.method).toBe('POST');
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
    });
    expect(fetch).not.toHaveBeenCalled();
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

  it('refuses a base URL that is not a URL (CONFIG_INVALID)', async () => {
    const code = await codeOf(
      chooseRegistry(deps({ settings: { baseUrl: 'updates example', pinnedKeys: [KEY_A] } })),
    );
    expect(code).toBe('CONFIG_INVALID');
  });
});
