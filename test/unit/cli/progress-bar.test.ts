import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatEta,
  progressBar,
  renderProgress,
  type ProgressSample,
} from '#cli/progress-bar.js';

const MiB = 1024 * 1024;

/** Large, wide numbers: the worst case for the width. */
const WIDE: ProgressSample = {
  bytes: 1023.9 * MiB,
  total: 3000 * MiB,
  received: 1000 * MiB,
  elapsedMs: 1_000_000,
  artifact: 'resources/app/lib/libsomething-long-name.so',
};

describe('progress bar', () => {
  it('formats bytes with binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('formats the time left shortly', () => {
    expect(formatEta(undefined)).toBe('?');
    expect(formatEta(41.2)).toBe('42s');
    expect(formatEta(185)).toBe('3m05s');
    expect(formatEta(2 * 3600 + 7 * 60)).toBe('2h07m');
    expect(formatEta(1e9)).toBe('>99h');
  });

  it('shows bar, percent, bytes, rate, ETA and artifact when there is room', () => {
    const line = renderProgress(
      { bytes: MiB, total: 4 * MiB, received: MiB, elapsedMs: 1000, artifact: 'app.bin' },
      80,
    );
    expect(line).toBe(
      '[########----------------------] 25% 1.0 MiB/4.0 MiB 1.0 MiB/s ETA 3s app.bin',
    );
  });

  it.each([60, 40, 120])('fits %i columns, keeping percent, rate and ETA', (columns) => {
    for (const sample of [
      WIDE,
      { ...WIDE, bytes: 5 * MiB, total: 40 * MiB, received: 5 * MiB, artifact: 'a.bin' },
      { ...WIDE, received: 0 },
    ]) {
      const line = renderProgress(sample, columns);
      expect(line.length).toBeLessThanOrEqual(columns - 1);
      expect(line).toMatch(/\d+%/);
      expect(line).toMatch(/\/s /);
      expect(line).toMatch(/ETA (\?|\d)/);
    }
  });

  it('at 60 columns keeps the bar and totals of a typical pull; at 120 the whole name', () => {
    const typical = { ...WIDE, bytes: 5 * MiB, total: 40 * MiB, received: 5 * MiB };
    const sixty = renderProgress({ ...typical, artifact: 'bin/app' }, 60);
    expect(sixty).toMatch(/^\[[#-]{10,}\] 12% 5\.0 MiB\/40\.0 MiB /);
    const wide = renderProgress(WIDE, 120);
    expect(wide).toContain(WIDE.artifact);
    expect(wide).toMatch(/^\[[#-]{10,30}\] /);
    // A name too long for the room is cut at its start: the file name stays readable.
    const cut = renderProgress(WIDE, 80);
    expect(cut).toMatch(/…[^ ]*long-name\.so$/);
  });

  it('drops the bar and the totals at 40 columns rather than cutting a field', () => {
    const line = renderProgress(WIDE, 40);
    expect(line).not.toContain('[');
    expect(line).toBe('34% 1023.9 MiB 1.0 MiB/s ETA 32m57s');
  });

  it('computes the rate from bytes received in this run, not from resumed bytes', () => {
    // 3 GiB in hand (resumed), 1 MiB received in 1 s: the rate is 1 MiB/s, not 3 GiB/s, and
    // the last GiB takes 1024 s.
    const line = renderProgress(
      { bytes: 3072 * MiB, total: 4096 * MiB, received: MiB, elapsedMs: 1000, artifact: 'a' },
      120,
    );
    expect(line).toContain(' 1.0 MiB/s ');
    expect(line).toContain('ETA 17m04s');
  });

  it('follows a resized terminal: the width is read on every frame', () => {
    const frames: string[] = [];
    let columns = 120;
    const bar = progressBar({
      write: (t) => frames.push(t),
      get columns() {
        return columns;
      },
      nowMs: () => 0,
    });
    const event = { type: 'progress', ...WIDE } as const;
    bar.listener(event);
    columns = 40;
    bar.listener(event);
    const lines = frames.map((f) => f.slice('\r'.length, -'\u001b[K'.length));
    expect(lines[0]).toMatch(/^\[/);
    expect(lines[1]).not.toMatch(/^\[/);
    expect(lines[1]?.length).toBeLessThanOrEqual(39);
  });

  it('draws on progress events only, at the sink width, and ends the line', () => {
    let out = '';
    let now = 0;
    const bar = progressBar({ write: (t) => (out += t), columns: 60, nowMs: () => now });
    bar.listener({ type: 'checking', atMs: 0 });
    expect(out).toBe('');
    bar.listener({ type: 'progress', bytes: 0, total: 10, artifact: 'a', received: 0 });
    now = 1000;
    bar.listener({ type: 'progress', bytes: 10, total: 10, artifact: 'a', received: 10 });
    bar.end();
    expect(out).toContain('100%');
    expect(out).toContain(' 10 B/s ');
    expect(out.startsWith('\r')).toBe(true);
    expect(out.endsWith('\n')).toBe(true);
    for (const frame of out.split('\r').slice(1)) {
      expect(frame.replace('\u001b[K', '').trimEnd().length).toBeLessThanOrEqual(59);
    }
  });

  it("uses the event's received bytes: a resumed first reading does not inflate the rate", () => {
    let out = '';
    let now = 0;
    const bar = progressBar({ write: (t) => (out = t), columns: 120, nowMs: () => now });
    bar.listener({
      type: 'progress',
      bytes: 900 * MiB,
      total: 1000 * MiB,
      artifact: 'a',
      received: 0,
    });
    now = 1000;
    bar.listener({
      type: 'progress',
      bytes: 902 * MiB,
      total: 1000 * MiB,
      artifact: 'a',
      received: 2 * MiB,
    });
    expect(out).toContain(' 2.0 MiB/s ');
  });
});
