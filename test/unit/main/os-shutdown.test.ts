/**
 * OS shutdown and log-off (src/main/os-shutdown.ts, docs/DESKTOP.md "Lifecycle"): Windows'
 * session-end and powerMonitor's shutdown elsewhere close the core within a bounded time, then
 * exit. With fakes, and once with a real core whose pull hangs: the pull is aborted and the
 * state lock released.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UpdaterApi } from '#core/updater-api.js';
import {
  attachOsShutdown,
  SHUTDOWN_GRACE_MS,
  type OsShutdownDeps,
  type OsShutdownSource,
} from '#main/os-shutdown.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { startLocalRegistry } from '#test/local-registry.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** The Electron events as plain callbacks the test fires. */
function fakeSource(): OsShutdownSource & {
  sessionEnd: (() => void)[];
  powerShutdown: ((event: { preventDefault(): void }) => void)[];
} {
  const sessionEnd: (() => void)[] = [];
  const powerShutdown: ((event: { preventDefault(): void }) => void)[] = [];
  return {
    sessionEnd,
    powerShutdown,
    onSessionEnd: (listener) => sessionEnd.push(listener),
    onPowerShutdown: (listener) => powerShutdown.push(listener),
  };
}

function deps(
  platform: NodeJS.Platform,
  close: () => Promise<void>,
): OsShutdownDeps & { order: string[]; logs: string[] } {
  const order: string[] = [];
  const logs: string[] = [];
  return {
    platform,
    close: async () => {
      order.push('close');
      await close();
      order.push('closed');
    },
    markQuitting: () => order.push('quitting'),
    exit: () => order.push('exit'),
    timers: {
      setTimeout: (cb, ms) => setTimeout(cb, ms),
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    },
    log: (level, message) => logs.push(`${level}: ${message}`),
    order,
    logs,
  };
}

describe('attachOsShutdown', () => {
  it('Windows-like: session-end closes the core, then exits', async () => {
    const source = fakeSource();
    const d = deps('win32', () => Promise.resolve());
    const shutdown = attachOsShutdown(source, d);
    expect(source.powerShutdown).toHaveLength(0); // powerMonitor's shutdown is not Windows'
    expect(shutdown.pending).toBeNull();
    source.sessionEnd.forEach((fire) => fire());
    expect(await shutdown.pending).toBe('closed');
    expect(d.order).toEqual(['quitting', 'close', 'closed', 'exit']);
  });

  it('Windows-like: query-session-end then session-end close the core once', async () => {
    const source = fakeSource();
    const close = vi.fn(() => Promise.resolve());
    const d = deps('win32', close);
    const shutdown = attachOsShutdown(source, d);
    const listener = source.sessionEnd[0];
    listener?.(); // query-session-end
    listener?.(); // session-end
    expect(await shutdown.pending).toBe('closed');
    expect(close).toHaveBeenCalledTimes(1);
    expect(d.order.filter((step) => step === 'exit')).toHaveLength(1);
  });

  for (const platform of ['linux', 'darwin'] as const) {
    it(`${platform}: powerMonitor shutdown is delayed (preventDefault) until the core is closed`, async () => {
      const source = fakeSource();
      const d = deps(platform, () => Promise.resolve());
      const shutdown = attachOsShutdown(source, d);
      expect(source.sessionEnd).toHaveLength(0);
      const preventDefault = vi.fn();
      source.powerShutdown.forEach((fire) => fire({ preventDefault }));
      expect(preventDefault).toHaveBeenCalledTimes(1);
      expect(await shutdown.pending).toBe('closed');
      expect(d.order).toEqual(['quitting', 'close', 'closed', 'exit']);
    });
  }

  it('a commit still running past the grace: the app exits anyway, bounded, and says why', async () => {
    vi.useFakeTimers();
    try {
      const source = fakeSource();
      // close() waits for the commit, which outlasts the grace.
      const d = deps('linux', () => new Promise<void>(() => undefined));
      const shutdown = attachOsShutdown(source, d);
      source.powerShutdown[0]?.({ preventDefault: () => undefined });
      await vi.advanceTimersByTimeAsync(SHUTDOWN_GRACE_MS - 1);
      expect(d.order).not.toContain('exit');
      await vi.advanceTimersByTimeAsync(1);
      expect(await shutdown.pending).toBe('timed-out');
      expect(d.order).toEqual(['quitting', 'close', 'exit']);
      expect(d.logs.join('\n')).toContain('journal');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a close that fails still exits (logged)', async () => {
    const source = fakeSource();
    const d = deps('win32', () => Promise.reject(new Error('disk gone')));
    const shutdown = attachOsShutdown(source, d);
    source.sessionEnd[0]?.();
    expect(await shutdown.pending).toBe('failed');
    expect(d.order.at(-1)).toBe('exit');
    expect(d.logs.join('\n')).toContain('disk gone');
  });

  it('a real core: a pull hanging mid-artifact is aborted and the state lock released within the grace', async () => {
    const registry = await startLocalRegistry();
    const dir = await dirs.make();
    try {
      registry.publish('1.0.0', [{ name: 'big.bin', content: new Uint8Array(300_000).fill(3) }]);
      // The artifact answers its headers and a few bytes, then nothing more.
      registry.hook = (req, res) => {
        if (req.url === '/api/updates/manifest') return false;
        res.writeHead(200, { 'content-length': 300_000 });
        res.write(Buffer.alloc(1000, 3));
        return true;
      };
      const updater: UpdaterApi = await createNodeUpdater({
        baseUrl: registry.baseUrl,
        machineKey: registry.machineKey,
        pubkeys: [registry.pubkeyHex],
        dir,
        limits: { retries: 1, stallTimeoutMs: 60_000 },
      });
      let progressed: () => void = () => undefined;
      const pulling = new Promise<void>((resolve) => (progressed = resolve));
      updater.on((event) => {
        if (event.type === 'progress') progressed();
      });
      const run = updater.update().catch((error: unknown) => error);
      await pulling;
      const source = fakeSource();
      const shutdown = attachOsShutdown(
        source,
        deps('linux', () => updater.close()),
      );
      const started = Date.now();
      source.powerShutdown[0]?.({ preventDefault: () => undefined });
      expect(await shutdown.pending).toBe('closed');
      expect(Date.now() - started).toBeLessThan(SHUTDOWN_GRACE_MS);
      expect(await run).toMatchObject({ code: 'ABORTED' });
      // The lock is released: the directory opens again at once.
      expect(await readdir(join(dir, '.updater'))).not.toContain('lock');
      const again = await createNodeUpdater({
        baseUrl: registry.baseUrl,
        machineKey: registry.machineKey,
        pubkeys: [registry.pubkeyHex],
        dir,
      });
      await again.close();
    } finally {
      await registry.close();
    }
  });
});
