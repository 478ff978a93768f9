/**
 * The sync shell started with no descriptor left for its pipes (test/unit/node/fs/sync-coprocess.test.ts):
 * it opens /dev/null until EMFILE, asks SyncCoprocess for one `sync -f`, and prints JSON: the
 * command's error, and that the process is still alive after the spawn's 'error' event.
 *
 *   bash -c 'ulimit -n N; exec node --import tsx test/helpers/sync-shell-emfile-child.ts'
 */
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SyncCoprocess } from '#node/fs/sync-coprocess.js';

const held: number[] = [];
try {
  for (;;) held.push(openSync('/dev/null', 'r'));
} catch {
  // EMFILE: every descriptor the limit allows is taken.
}
const shell = new SyncCoprocess();
let failure: string | undefined;
try {
  await shell.run('/usr/bin/sync', ['-f', tmpdir()], 10_000);
} catch (error) {
  failure = error instanceof Error ? error.message : String(error);
}
// The spawn's 'error' event comes after the command failed: the process must outlive it.
await new Promise((resolve) => setTimeout(resolve, 100));
process.stdout.write(JSON.stringify({ held: held.length, failure, alive: true }));
