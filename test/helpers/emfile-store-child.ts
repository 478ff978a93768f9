/**
 * A store pulling small blobs in a process with few descriptors (test/unit/node/blobs/whole-blob.test.ts):
 * run under `ulimit -n`, so the syncfs batch (seal-batches.ts) holds more descriptors than the
 * process may open. It writes COUNT distinct small blobs (each padded to SIZE bytes, when
 * given) without settling in between, then settles, and prints JSON: how many blobs/ holds and
 * the steps seen.
 *
 *   bash -c 'ulimit -n N; exec node --import tsx test/helpers/emfile-store-child.ts DIR COUNT [SIZE]'
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { FileStore } from '#node/store/file-store.js';

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const [dir, countArg, sizeArg] = process.argv.slice(2);
const size = Number(sizeArg ?? 0);
if (dir === undefined || countArg === undefined) process.exit(2);
const steps: string[] = [];
const store = await FileStore.open(dir, {
  onStep: (step) => steps.push(step),
  kernelRelease: '6.8.0',
  // The sync itself is not what is tested here: it answers at once.
  syncRunner: () => Promise.resolve(),
});
for (let i = 0; i < Number(countArg); i++) {
  const label = Buffer.from(`small blob ${i}`);
  const bytes = Buffer.concat([label, Buffer.alloc(Math.max(0, size - label.length), 0x2e)]);
  const partial = await store.openPartial(sha256Hex(bytes), bytes.length);
  await partial.write(bytes);
  await partial.complete();
}
await store.settleBlobs();
const blobs = (await readdir(join(dir, '.updater', 'blobs'))).filter((n) =>
  /^[0-9a-f]{64}$/.test(n),
);
process.stdout.write(
  JSON.stringify({
    blobs: blobs.length,
    batches: steps.filter((s) => s === 'blobs-batch-synced').length,
  }),
);
