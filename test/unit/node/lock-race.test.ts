/**
 * Cross-process races on the state-directory lock (docs/UPDATER.md §8): real processes with
 * real PIDs race round by round for one lock (free, stale, old and empty, or with a dead
 * break marker); each round must have exactly one owner. The in-process races with forced
 * interleavings (and the O_EXCL fallback) are in lock-file.test.ts.
 */
import { spawn } from 'node:child_process';
import { utimes, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { breakMarker, UNREADABLE_STALE_MS } from '#node/locks/lock-file.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CONTENDERS = 3;
const ROUNDS = 100;

function contender(dir: string, id: number): Promise<{ won: number[]; refused: string[] }> {
  const script = join(REPO_ROOT, 'test', 'helpers', 'lock-race-child.ts');
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', script, dir, String(id), String(CONTENDERS), String(ROUNDS)],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0) reject(new Error(`contender ${id} exited ${code}`));
      else resolvePromise(JSON.parse(out) as { won: number[]; refused: string[] });
    });
  });
}

/** A PID that no process has (above Linux's default pid_max and macOS's 99999). */
const DEAD_PID = 4_194_304 + 17;

describe('cross-process lock races', () => {
  it(`${ROUNDS} rounds of ${CONTENDERS} processes: exactly one owner each, never two`, async () => {
    const dir = await dirs.make();
    for (let round = 0; round < ROUNDS; round++) {
      const path = join(dir, `lock-${round}`);
      const stale = `${JSON.stringify({ pid: DEAD_PID, nonce: String(round) })}\n`;
      switch (round % 4) {
        case 0:
          break; // free
        case 1:
          await writeFile(path, stale);
          break;
        case 2: {
          await writeFile(path, '');
          const old = (Date.now() - UNREADABLE_STALE_MS - 5000) / 1000;
          await utimes(path, old, old);
          break;
        }
        default:
          await writeFile(path, stale);
          await writeFile(breakMarker(path, stale), `${DEAD_PID}\n`);
      }
    }
    const results = await Promise.all(
      Array.from({ length: CONTENDERS }, (_, id) => contender(dir, id)),
    );
    const owners = new Map<number, number>();
    for (const r of results)
      for (const round of r.won) owners.set(round, (owners.get(round) ?? 0) + 1);
    const doubles = [...owners].filter(([, n]) => n > 1).map(([round]) => round);
    expect(doubles).toEqual([]);
    expect(results.flatMap((r) => r.refused).every((code) => code === 'LOCKED')).toBe(true);
    // Every round has its owner (a contender gives up only on a live one).
    expect(owners.size).toBe(ROUNDS);
  }, 120_000);
});
