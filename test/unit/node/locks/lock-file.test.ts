import { spawnSync } from 'node:child_process';
import { mkdir, readFile, readdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  acquireLock,
  BOOT_SLACK_MS,
  breakMarker,
  parseRecord,
  processStartTime,
  UNREADABLE_STALE_MS,
  type LockPoint,
} from '#node/locks/lock-file.js';
import { pidExists, type OsFacts } from '#node/locks/os-facts.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** The PID of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

/** A machine as the lock sees it: which PIDs live, and what the OS tells about them. */
interface FakeMachine {
  host: string;
  /** Linux only. */
  bootId: string | undefined;
  bootTimeMs: number;
  /** Undefined: the real clock. */
  nowMs: number | undefined;
  live: Set<number>;
  /** Linux only: start time per PID. */
  starts: Map<number, string>;
}

const NOW = 1_700_000_000_000;

function linux(): FakeMachine {
  return {
    host: 'box',
    bootId: 'boot-1',
    bootTimeMs: NOW - 3_600_000,
    nowMs: NOW,
    live: new Set(),
    starts: new Map(),
  };
}

/** macOS and Windows give neither a boot id nor a start time: boot time and PID only. */
function noProc(host: string): FakeMachine {
  return {
    host,
    bootId: undefined,
    bootTimeMs: NOW - 3_600_000,
    nowMs: NOW,
    live: new Set(),
    starts: new Map(),
  };
}

function factsOf(machine: FakeMachine, pid: number): OsFacts {
  machine.live.add(pid);
  return {
    pid,
    hostname: () => machine.host,
    bootId: () => machine.bootId,
    bootTimeMs: () => machine.bootTimeMs,
    startTime: (p) => (machine.bootId === undefined ? undefined : machine.starts.get(p)),
    processExists: (p) => machine.live.has(p),
    nowMs: () => machine.nowMs ?? Date.now(),
  };
}

/** A lock written by `pid` on `machine` as it is now. */
async function lockBy(path: string, machine: FakeMachine, pid: number): Promise<void> {
  const holder = await acquireLock(path, { facts: factsOf(machine, pid) });
  void holder; // left held: the file stays, as a crashed or live holder leaves it
}

const pidOf = async (path: string): Promise<number | undefined> =>
  parseRecord(await readFile(path, 'utf8'))?.pid;

describe('acquireLock (this machine)', () => {
  it('takes a free lock and writes our PID', async () => {
    const path = join(await dirs.make(), 'lock');
    const lock = await acquireLock(path);
    expect(await pidOf(path)).toBe(process.pid);
    await lock.release();
  });

  it('refuses a lock held by a live process (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    const lock = await acquireLock(path);
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
    await lock.release();
  });

  it('can be taken again after release, and leaves no file behind', async () => {
    const dir = await dirs.make();
    const path = join(dir, 'lock');
    await (await acquireLock(path)).release();
    const again = await acquireLock(path);
    await again.release();
    await expect(readFile(path)).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over a stale lock of a dead PID (older "<pid>" format)', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, `${deadPid()}\n`);
    const lock = await acquireLock(path);
    expect(await pidOf(path)).toBe(process.pid);
    await lock.release();
  });

  it('takes over a lock whose live PID has another start time (older format, PID reused)', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, `${process.pid} 1\n`);
    if (processStartTime(process.pid) === undefined) {
      await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
      return;
    }
    const lock = await acquireLock(path);
    await lock.release();
  });

  it('refuses a lock naming this process with its real start time (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    const start = processStartTime(process.pid);
    await writeFile(path, start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`);
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
  });

  it('leaves a stale lock alone while a live process holds its break marker (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    const stale = `${deadPid()}\n`;
    await writeFile(path, stale);
    // A live takeover in progress: only the marker's creator may remove the stale lock.
    const marker = breakMarker(path, stale);
    await writeFile(marker, `${process.pid} ${processStartTime(process.pid) ?? ''}`.trim());
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
    expect(await readFile(path, 'utf8')).toBe(stale);
    expect(await readFile(marker, 'utf8')).toContain(String(process.pid));
  });

  it('breaks a marker left by a dead process (and a marker of that marker), then takes the stale lock', async () => {
    const dir = await dirs.make();
    const path = join(dir, 'lock');
    const stale = `${deadPid()}\n`;
    await writeFile(path, stale);
    const marker = breakMarker(path, stale);
    const markerText = `${deadPid()}\n`;
    await writeFile(marker, markerText);
    await writeFile(breakMarker(marker, markerText), `${deadPid()}\n`);
    const lock = await acquireLock(path, { attempts: 6 });
    expect(await pidOf(path)).toBe(process.pid);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('release removes only its own lock, never a later owner’s', async () => {
    const path = join(await dirs.make(), 'lock');
    const lock = await acquireLock(path);
    await writeFile(path, `${process.pid} 999\n`); // someone else's record now
    await lock.release();
    expect(await readFile(path, 'utf8')).toBe(`${process.pid} 999\n`);
  });

  it('refuses a lock name that is a symbolic link (STATE_UNSAFE), writing nothing through it', async () => {
    const dir = await dirs.make();
    const outside = join(dir, 'outside');
    await mkdir(outside);
    const path = join(dir, 'lock');
    await symlink(join(outside, 'target'), path); // dangling
    await expect(acquireLock(path)).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
      message: expect.stringContaining(path) as unknown,
    });
    await writeFile(join(outside, 'target'), 'mine');
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'STATE_UNSAFE' });
    expect(await readdir(outside)).toEqual(['target']);
    expect(await readFile(join(outside, 'target'), 'utf8')).toBe('mine');
  });
});

describe('pidExists: process.kill(pid, 0)', () => {
  it('ESRCH is gone; EPERM (another user’s process, Windows access denied) exists', () => {
    const kill = vi.spyOn(process, 'kill');
    try {
      kill.mockImplementationOnce(() => {
        throw Object.assign(new Error('no such process'), { code: 'ESRCH' });
      });
      expect(pidExists(4242)).toBe(false);
      kill.mockImplementationOnce(() => {
        throw Object.assign(new Error('not permitted'), { code: 'EPERM' });
      });
      expect(pidExists(4242)).toBe(true);
      kill.mockImplementationOnce(() => true);
      expect(pidExists(4242)).toBe(true);
    } finally {
      kill.mockRestore();
    }
    expect(pidExists(process.pid)).toBe(true);
    expect(pidExists(deadPid())).toBe(false);
  });
});

describe('the stale-owner check on each OS (injected facts)', () => {
  it('Linux: a live holder with its own start time on this boot is held (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    const m = linux();
    m.starts.set(100, '5000');
    await lockBy(path, m, 100);
    await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
      code: 'LOCKED',
    });
  });

  it('Linux: the PID now belongs to a later process (start time differs): taken over', async () => {
    const path = join(await dirs.make(), 'lock');
    const m = linux();
    m.starts.set(100, '5000');
    await lockBy(path, m, 100);
    m.starts.set(100, '9000'); // the holder died, its PID was reused
    await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
  });

  it('Linux: a lock from before a reboot (boot id differs) is stale even with a live PID', async () => {
    const path = join(await dirs.make(), 'lock');
    const m = linux();
    m.starts.set(100, '5000');
    await lockBy(path, m, 100);
    m.bootId = 'boot-2'; // same PID and even the same start ticks after the reboot
    await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
  });

  it('Linux: a holder that is gone (ESRCH) is stale', async () => {
    const path = join(await dirs.make(), 'lock');
    const m = linux();
    await lockBy(path, m, 100);
    m.live.delete(100);
    await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
  });

  for (const os of ['macOS', 'Windows'] as const) {
    const machine = (): FakeMachine => noProc(os === 'macOS' ? 'mac.local' : 'DESKTOP-1');

    it(`${os}-like: no start time, so a live PID is held (LOCKED), never guessed stale`, async () => {
      const path = join(await dirs.make(), 'lock');
      const m = machine();
      await lockBy(path, m, 100);
      const record = parseRecord(await readFile(path, 'utf8'));
      expect(record).toMatchObject({ pid: 100, host: m.host, bootTimeMs: m.bootTimeMs });
      expect(record?.bootId).toBeUndefined();
      expect(record?.startTime).toBeUndefined();
      await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
        code: 'LOCKED',
      });
    });

    it(`${os}-like: a holder that is gone (ESRCH) is stale`, async () => {
      const path = join(await dirs.make(), 'lock');
      const m = machine();
      await lockBy(path, m, 100);
      m.live.delete(100);
      await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
    });

    it(`${os}-like: a reboot (boot time later by more than the slack) makes a reused live PID stale`, async () => {
      const path = join(await dirs.make(), 'lock');
      const m = machine();
      await lockBy(path, m, 100);
      m.bootTimeMs += BOOT_SLACK_MS + 60_000; // rebooted; PID 100 now names another process
      await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
    });

    it(`${os}-like: a clock adjustment within the slack is the same boot (LOCKED)`, async () => {
      const path = join(await dirs.make(), 'lock');
      const m = machine();
      await lockBy(path, m, 100);
      m.bootTimeMs += BOOT_SLACK_MS - 60_000;
      await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
        code: 'LOCKED',
      });
      m.bootTimeMs -= 2 * BOOT_SLACK_MS; // the clock set back: never read as a reboot
      await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
        code: 'LOCKED',
      });
    });
  }

  it('a lock of another host cannot be judged here: held (LOCKED, naming the host)', async () => {
    const path = join(await dirs.make(), 'lock');
    const other = noProc('other-host');
    await lockBy(path, other, 100);
    other.live.delete(100);
    const here = noProc('this-host');
    await expect(acquireLock(path, { facts: factsOf(here, 200) })).rejects.toMatchObject({
      code: 'LOCKED',
      message: expect.stringContaining('other-host') as unknown,
    });
  });
});

describe('an empty or unreadable lock is held until old enough to be stale', () => {
  for (const [name, text] of [
    ['empty', ''],
    ['torn', '{"pid":12'],
    ['garbage', 'garbage'],
  ] as const) {
    it(`${name}: LOCKED while recent, taken over once ${UNREADABLE_STALE_MS} ms old`, async () => {
      const path = join(await dirs.make(), 'lock');
      await writeFile(path, text);
      const m = noProc('box');
      const written = (await stat(path)).mtimeMs;
      m.nowMs = written + 50;
      await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
        code: 'LOCKED',
      });
      expect(await readFile(path, 'utf8')).toBe(text);
      m.nowMs = written + UNREADABLE_STALE_MS + 1;
      await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
    });
  }

  it('a bare "1" line (pid 1 is always alive): LOCKED while recent, taken over once old', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, '1\n');
    const m = linux();
    m.live.add(1);
    const written = (await stat(path)).mtimeMs;
    m.nowMs = written + 50;
    await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
      code: 'LOCKED',
    });
    m.nowMs = written + UNREADABLE_STALE_MS + 1;
    await (await acquireLock(path, { facts: factsOf(m, 200) })).release();
  });

  it('an old garbage lock on disk is taken over with the real clock', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, 'garbage');
    const old = (Date.now() - UNREADABLE_STALE_MS - 5000) / 1000;
    await utimes(path, old, old);
    await (await acquireLock(path)).release();
  });
});

/** A seeded PRNG (mulberry32): a failing round replays the same way. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Scenario = 'free' | 'stale' | 'old-empty' | 'dead-marker';
const SCENARIOS: readonly Scenario[] = ['free', 'stale', 'old-empty', 'dead-marker'];

/**
 * One forced race: `contenders` fake processes (distinct PIDs on one fake machine) take the
 * same lock at once, each paused at random at every step (setImmediate or a 0-2 ms timer).
 * Nobody releases, so two successes are two owners at the same time.
 */
async function race(
  dir: string,
  round: number,
  scenario: Scenario,
  hardLinks: boolean,
): Promise<{ owners: number; refusals: string[] }> {
  const path = join(dir, `lock-${round}`);
  const m = noProc('box');
  m.nowMs = undefined; // the real clock: fresh files are young, the planted one is old
  const dead = 1;
  const stale = `${JSON.stringify({ pid: dead, host: 'box', bootTimeMs: m.bootTimeMs, nonce: String(round) })}\n`;
  if (scenario === 'stale' || scenario === 'dead-marker') await writeFile(path, stale);
  if (scenario === 'dead-marker') await writeFile(breakMarker(path, stale), `${dead}\n`);
  if (scenario === 'old-empty') {
    await writeFile(path, '');
    const old = (Date.now() - UNREADABLE_STALE_MS - 5000) / 1000;
    await utimes(path, old, old);
  }
  const random = prng(round * 7919 + (hardLinks ? 1 : 2));
  const pause = (point: LockPoint, file: string): Promise<void> =>
    new Promise((resolve) => {
      // The old bug's window, held open long: an O_EXCL lock still empty.
      if (point === 'created-empty' && file === path) setTimeout(resolve, 25);
      else if (random() < 0.5) setImmediate(resolve);
      else setTimeout(resolve, Math.floor(random() * 3));
    });
  let owners = 0;
  const refusals: string[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async (_, i) => {
      try {
        await acquireLock(path, { facts: factsOf(m, 100 + i), pause, hardLinks, attempts: 6 });
        owners++;
      } catch (error) {
        refusals.push((error as { code: string }).code);
      }
    }),
  );
  return { owners, refusals };
}

describe('forced races on the lock’s create window: never two owners', () => {
  for (const hardLinks of [true, false]) {
    const how = hardLinks ? 'link(2) of a whole temp file' : 'O_EXCL then write (no hard links)';
    it(`${how}: 120 races of 4 contenders, 0 double owners`, async () => {
      const dir = await dirs.make();
      const tally = { double: 0, none: 0, one: 0 };
      for (let round = 0; round < 120; round++) {
        const scenario = SCENARIOS[round % SCENARIOS.length] as Scenario;
        const { owners, refusals } = await race(dir, round, scenario, hardLinks);
        if (owners > 1) tally.double++;
        else if (owners === 0) tally.none++;
        else tally.one++;
        expect(refusals.every((code) => code === 'LOCKED')).toBe(true);
        // A free lock always goes to exactly one contender.
        if (scenario === 'free') expect(owners).toBe(1);
      }
      expect(tally.double).toBe(0);
      // Losing every attempt to a live takeover is possible but rare: most races have a winner.
      expect(tally.one).toBeGreaterThanOrEqual(110);
    }, 60_000);
  }

  it('the old window: a lock still empty after its O_EXCL create is held, not taken for stale', async () => {
    const path = join(await dirs.make(), 'lock');
    const m = noProc('box');
    m.nowMs = undefined;
    let release: () => void = () => undefined;
    const writing = new Promise<void>((resolve) => (release = resolve));
    let created: () => void = () => undefined;
    const isEmpty = new Promise<void>((resolve) => (created = resolve));
    const first = acquireLock(path, {
      facts: factsOf(m, 100),
      hardLinks: false,
      pause: (point) => {
        if (point !== 'created-empty') return Promise.resolve();
        created();
        return writing;
      },
    });
    await isEmpty;
    expect(await readFile(path, 'utf8')).toBe('');
    await expect(acquireLock(path, { facts: factsOf(m, 200) })).rejects.toMatchObject({
      code: 'LOCKED',
      message: expect.stringContaining('being written') as unknown,
    });
    release();
    const lock = await first;
    expect(await pidOf(path)).toBe(100);
    await lock.release();
  });
});
