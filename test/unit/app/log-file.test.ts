import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLogFile } from '#app/log-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'log-file-'));
  dirs.push(dir);
  return dir;
}

describe('rotating log file', () => {
  it('writes one timestamped line per entry, newlines flattened', () => {
    const dir = tempDir();
    const log = openLogFile({ dir, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    log.write('info', 'hello\nforged 2026 error line');
    expect(readFileSync(log.path, 'utf8')).toBe(
      '2026-01-02T03:04:05.000Z info hello forged 2026 error line\n',
    );
  });

  it('rotates past maxBytes and keeps at most `keep` old files', () => {
    const dir = tempDir();
    const log = openLogFile({ dir, maxBytes: 100, keep: 2, now: () => 0 });
    for (let i = 0; i < 20; i += 1) log.write('info', `entry number ${i} ${'x'.repeat(20)}`);
    expect(readdirSync(dir).sort()).toEqual(['main.log', 'main.log.1', 'main.log.2']);
    for (const name of readdirSync(dir)) {
      expect(readFileSync(join(dir, name)).length).toBeLessThanOrEqual(100);
    }
    expect(readFileSync(log.path, 'utf8')).toContain('entry number 19');
  });
});
