/**
 * One contender of the cross-process lock races (test/unit/node/lock-race.test.ts): a real
 * process with its real PID and OS facts. Round by round it tries to take DIR/lock-<round>
 * (planted by the parent: free, stale, old and empty, or with a dead break marker), keeps what
 * it wins (a live holder, so nobody may take it over), and waits at a barrier for the others.
 * It prints the rounds it won as JSON once every contender is done.
 *
 *   node --import tsx test/helpers/lock-race-child.ts DIR ID CONTENDERS ROUNDS
 */
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireLock, type LockHandle } from '#node/locks/lock-file.js';

const [dirArg, id, contenders, rounds] = process.argv.slice(2);
if (dirArg === undefined || id === undefined || contenders === undefined || rounds === undefined) {
  process.exit(2);
}
const dir: string = dirArg;

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Everyone's `<name>-<i>` file exists. */
async function barrier(name: string): Promise<void> {
  await writeFile(join(dir, `${name}-${id}`), '');
  for (let i = 0; i < Number(contenders); i++) {
    while (!(await exists(join(dir, `${name}-${i}`)))) await sleep(1);
  }
}

const held: LockHandle[] = [];
const won: number[] = [];
const refused: string[] = [];
await barrier('ready');
for (let round = 0; round < Number(rounds); round++) {
  try {
    held.push(
      await acquireLock(join(dir, `lock-${round}`), {
        attempts: 6,
        // Real processes, plus a random yield at every step to widen the interleavings.
        pause: () =>
          Math.random() < 0.5
            ? new Promise((resolve) => setImmediate(resolve))
            : sleep(Math.floor(Math.random() * 3)),
      }),
    );
    won.push(round);
  } catch (error) {
    refused.push((error as { code?: string }).code ?? String(error));
  }
  await barrier(`done-${round}`);
}
process.stdout.write(JSON.stringify({ won, refused }));
