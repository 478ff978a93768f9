import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Api } from '#preload/index.js';

/** Every method of window.updater: the contract's operations, onStatus and onSection. */
const EXPOSED = [
  'cancel',
  'checkNow',
  'getActivity',
  'getSettings',
  'getStatus',
  'installNow',
  'onSection',
  'onStatus',
  'openLog',
  'rollBack',
  'saveSettings',
  'setPaused',
  'skipVersion',
  'verify',
];

const h = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoked: [] as string[],
  listeners: new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>(),
}));

vi.mock('electron', () => ({
  contextBridge: {
    exposeInMainWorld: (name: string, value: unknown) => h.exposed.set(name, value),
  },
  ipcRenderer: {
    invoke: (channel: string) => {
      h.invoked.push(channel);
      return Promise.resolve(`answer:${channel}`);
    },
    on: (channel: string, fn: (event: unknown, ...args: unknown[]) => void) => {
      h.listeners.set(channel, [...(h.listeners.get(channel) ?? []), fn]);
    },
    removeListener: (channel: string, fn: (event: unknown, ...args: unknown[]) => void) => {
      h.listeners.set(
        channel,
        (h.listeners.get(channel) ?? []).filter((l) => l !== fn),
      );
    },
  },
}));

describe('preload bridge', () => {
  let api: Api;

  beforeAll(async () => {
    await import('#preload/index.js');
    api = h.exposed.get('updater') as Api;
  });

  it('exposes exactly the named functions of the contract as window.updater, never ipcRenderer', () => {
    expect([...h.exposed.keys()]).toEqual(['updater']);
    expect(Object.keys(api).sort()).toEqual(EXPOSED);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('passes the one argument of setPaused through, and nothing else', async () => {
    await api.setPaused(true);
    expect(h.invoked.at(-1)).toBe('updater:set-paused');
  });

  it('maps each method to its invoke channel', async () => {
    h.invoked.length = 0;
    await expect(api.getStatus()).resolves.toBe('answer:updater:get-status');
    await api.checkNow();
    await expect(api.getActivity()).resolves.toBe('answer:activity:get');
    expect(h.invoked).toEqual(['updater:get-status', 'updater:check-now', 'activity:get']);
  });

  it('hands status pushes to the page without the IpcRendererEvent, and unsubscribes', () => {
    const received: unknown[][] = [];
    const off = api.onStatus((...args: unknown[]) => received.push(args));
    const push = (h.listeners.get('updater:status') ?? [])[0];
    push?.({ sender: 'secret' }, { phase: 'idle' });
    expect(received).toEqual([[{ phase: 'idle' }]]);
    off();
    expect(h.listeners.get('updater:status')).toEqual([]);
  });
});
