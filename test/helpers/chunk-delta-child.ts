/**
 * A chunked download in a process of its own that SIGKILLs itself after its Nth chunk record
 * (test/integration/chunk-delta-crash.test.ts): a crash at the worst time, mid-delta.
 *
 *   node --import tsx test/helpers/chunk-delta-child.ts DIR BASE_URL ENTRY_JSON KILL_AFTER_RECORDS
 */
import { readFile } from 'node:fs/promises';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { runChunked } from './chunk-delta-kit.js';

const [dir, baseUrl, entryPath, killAfter] = process.argv.slice(2);
if (dir === undefined || baseUrl === undefined || entryPath === undefined) process.exit(2);
const artifact = JSON.parse(await readFile(entryPath, 'utf8')) as ManifestArtifact;
let records = 0;
await runChunked({
  dir,
  baseUrl,
  artifact,
  onRecorded: () => {
    if (++records >= Number(killAfter)) process.kill(process.pid, 'SIGKILL');
  },
});
