import { describe, expect, it } from 'vitest';
import type { AppController } from '#app/app-controller.js';
import { openAppSession, type SessionPart } from '#app/app-session.js';
import type { AppStatus } from '#preload/ipc-contract.js';

function fakePart(label: string, log: string[]): SessionPart & { emit(s: AppStatus): void } {
  const listeners = new Set<(s: AppStatus) => void>();
  const status = { registryLabel: label } as AppStatus;
  const controller: AppController = {
    getStatus: () => status,
    checkNow: () => {
      log.push(`check ${label}`);
      return Promise.resolve();
    },
    getActivity: () => Promise.resolve({ state: 'offline', message: label }),
    onStatus: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setPaused: (paused) => log.push(`paused ${label} ${paused}`),
    cancel: () => Promise.resolve({ ok: true, words: label }),
    rollBack: () => Promise.resolve({ ok: true, words: label }),
    verify: () => Promise.resolve({ ok: true, words: label }),
    openLog: () => Promise.resolve({ ok: true, words: label }),
    installNow: () => Promise.resolve({ ok: true, words: label }),
    skipVersion: () => ({ ok: true, words: label }),
    start: () => {
      log.push(`start ${label}`);
      return Promise.resolve();
    },
    close: () => {
      log.push(`close ${label}`);
      return Promise.resolve();
    },
  };
  return {
    controller,
    label,
    closeAfter: () => {
      log.push(`close demo of ${label}`);
      return Promise.resolve();
    },
    emit: (s) => {
      for (const l of listeners) l(s);
    },
  };
}

describe('app session', () => {
  it('restart closes the core and its demo registry before opening the next, and keeps listeners', async () => {
    const log: string[] = [];
    const parts = [fakePart('demo', log), fakePart('updates.example.com', log)];
    let opened = 0;
    const session = await openAppSession(() => Promise.resolve(parts[opened++] as SessionPart));
    const seen: string[] = [];
    session.onStatus((s) => seen.push(s.registryLabel));
    await session.start();
    parts[0]?.emit({ registryLabel: 'demo' } as AppStatus);
    expect(session.label()).toBe('demo');

    await session.restart();
    expect(log).toEqual([
      'start demo',
      'close demo',
      'close demo of demo',
      'start updates.example.com',
    ]);
    expect(session.label()).toBe('updates.example.com');
    expect(session.getStatus().registryLabel).toBe('updates.example.com');
    // The new controller's status reaches the old listener; the old one's no longer does.
    parts[0]?.emit({ registryLabel: 'stale' } as AppStatus);
    parts[1]?.emit({ registryLabel: 'fresh' } as AppStatus);
    expect(seen).toEqual(['demo', 'updates.example.com', 'fresh']);
    await session.checkNow();
    expect(log.at(-1)).toBe('check updates.example.com');
  });

  it('close closes the part of the moment once; a restart after close does nothing', async () => {
    const log: string[] = [];
    const session = await openAppSession(() => Promise.resolve(fakePart('a', log)));
    await session.close();
    await session.close();
    await session.restart();
    expect(log).toEqual(['close a', 'close demo of a']);
  });
});
