import { describe, expect, it, vi } from 'vitest';
import type { AppController } from '../../../src/main/app-controller.js';
import { bridgeEvents, bridgeHandlers, runOperation } from '../../../src/main/bridge-handlers.js';
import { OPERATION_NAMES } from '../../../src/preload/ipc-contract.js';

function fakeController(): AppController & {
  listeners: Set<(s: unknown) => void>;
  checks: ReturnType<typeof vi.fn>;
} {
  const listeners = new Set<(s: unknown) => void>();
  const checks = vi.fn(() => Promise.resolve());
  return {
    listeners,
    checks,
    getStatus: vi.fn(() => ({ phase: 'idle' }) as never),
    checkNow: checks,
    getActivity: vi.fn(() => Promise.resolve({ state: 'offline', message: 'x' }) as never),
    onStatus: (listener) => {
      listeners.add(listener as (s: unknown) => void);
      return () => listeners.delete(listener as (s: unknown) => void);
    },
    setPaused: () => undefined,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

describe('bridge handlers', () => {
  it('answers every operation of the contract from the controller', async () => {
    const c = fakeController();
    const handlers = bridgeHandlers(c);
    expect(Object.keys(handlers).sort()).toEqual([...OPERATION_NAMES].sort());
    await expect(runOperation(handlers, 'getStatus', [])).resolves.toEqual({ phase: 'idle' });
    await runOperation(handlers, 'checkNow', []);
    expect(c.checks).toHaveBeenCalledTimes(1);
  });

  it('BAD_ARGUMENTS: refuses arguments the contract does not take, without running anything', () => {
    const c = fakeController();
    expect(runOperation(bridgeHandlers(c), 'checkNow', ['extra'])).toBeNull();
    expect(c.checks).not.toHaveBeenCalled();
  });

  it('turns a handler that throws into a rejection, never a synchronous throw', async () => {
    const c = fakeController();
    c.getStatus = () => {
      throw new Error('boom');
    };
    await expect(runOperation(bridgeHandlers(c), 'getStatus', [])).rejects.toThrow('boom');
  });

  it('forwards the status push event and unsubscribes', () => {
    const c = fakeController();
    const seen: unknown[] = [];
    const off = bridgeEvents(c).status((s) => seen.push(s));
    for (const l of c.listeners) l({ phase: 'checking' });
    off();
    expect(seen).toEqual([{ phase: 'checking' }]);
    expect(c.listeners.size).toBe(0);
  });
});
