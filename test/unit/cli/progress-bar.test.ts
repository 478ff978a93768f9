import { describe, expect, it } from 'vitest';
import { formatBytes, progressBar, renderProgress } from '../../../src/cli/progress-bar.js';

describe('progress bar', () => {
  it('formats bytes with binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('shows percent, rate and ETA', () => {
    const line = renderProgress(1024 * 1024, 4 * 1024 * 1024, 1000, 'app.bin', 8);
    expect(line).toBe('[##------] 25% 1.0 MiB/4.0 MiB 1.0 MiB/s ETA 3s app.bin');
  });

  it('draws on progress events only and ends the line', () => {
    let out = '';
    let now = 0;
    const bar = progressBar({ write: (t) => (out += t), columns: 200, nowMs: () => now });
    bar.listener({ type: 'checking', atMs: 0 });
    expect(out).toBe('');
    bar.listener({ type: 'progress', bytes: 0, total: 10, artifact: 'a' });
    now = 1000;
    bar.listener({ type: 'progress', bytes: 10, total: 10, artifact: 'a' });
    bar.end();
    expect(out).toContain('100%');
    expect(out.startsWith('\r')).toBe(true);
    expect(out.endsWith('\n')).toBe(true);
  });
});
