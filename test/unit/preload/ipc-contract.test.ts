/**
 * The bridge contract (src/preload/ipc-contract.ts): one table that both transports, the main
 * process and the web window's server are generic over.
 */
import { describe, expect, it } from 'vitest';
import {
  createBridgeApi,
  EVENT_NAMES,
  EVENTS,
  IPC_CHANNELS,
  noArgs,
  OPERATION_NAMES,
  OPERATIONS,
  STATUS_EVENT_CHANNEL,
  subscribeMethod,
  type BridgeTransport,
} from '#preload/ipc-contract.js';

describe('bridge contract', () => {
  it('gives every operation and event its own channel', () => {
    const channels = [
      ...OPERATION_NAMES.map((n) => OPERATIONS[n].channel),
      ...EVENT_NAMES.map((n) => EVENTS[n].channel),
    ];
    expect(new Set(channels).size).toBe(channels.length);
    expect(IPC_CHANNELS.getStatus).toBe('updater:get-status');
    expect(STATUS_EVENT_CHANNEL).toBe('updater:status');
  });

  it('names operations so they are safe as a URL path segment', () => {
    for (const name of OPERATION_NAMES) expect(name).toMatch(/^[a-z][A-Za-z]*$/);
  });

  it('noArgs accepts no arguments and refuses any', () => {
    expect(noArgs([])).toEqual([]);
    expect(noArgs([undefined])).toBeNull();
    expect(noArgs(['x', 1])).toBeNull();
  });

  it('subscribeMethod names the subscription of an event', () => {
    expect(subscribeMethod('status')).toBe('onStatus');
  });

  it('createBridgeApi builds one frozen method per operation and one onX per event over any transport', async () => {
    const invoked: [string, readonly unknown[]][] = [];
    const subscribed = new Map<string, (payload: unknown) => void>();
    const transport: BridgeTransport = {
      invoke: (name, args) => {
        invoked.push([name, args]);
        return Promise.resolve(`answer:${name}`);
      },
      subscribe: (name, listener) => {
        subscribed.set(name, listener);
        return () => subscribed.delete(name);
      },
    };
    const api = createBridgeApi(transport);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.keys(api).sort()).toEqual(
      [...OPERATION_NAMES, ...EVENT_NAMES.map(subscribeMethod)].sort(),
    );
    await expect(api.getActivity()).resolves.toBe('answer:getActivity');
    expect(invoked).toEqual([['getActivity', []]]);
    const seen: unknown[] = [];
    const off = api.onStatus((status) => seen.push(status));
    subscribed.get('status')?.({ phase: 'idle' });
    expect(seen).toEqual([{ phase: 'idle' }]);
    off();
    expect(subscribed.has('status')).toBe(false);
  });
});
