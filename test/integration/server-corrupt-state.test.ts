/**
 * A corrupt state file is named by path, with what is wrong and what the operator can do
 * (docs/SERVER.md §Data directory), at start: machines.json, freshness.json, keys/1.json.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '#server/compose/start-server.js';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'server-corrupt-state-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function preparedDir(): Promise<string> {
  const dataDir = join(work, 'd');
  const server = await startServer({ dataDir, simulate: false });
  await server.close();
  return dataDir;
}

describe('a corrupt state file', () => {
  it.each([
    [
      'machines.json',
      '{"machines": [{"machine_id": "m_',
      /is not valid JSON \(.*\); restore it from a backup, or move it away/,
    ],
    ['machines.json', '[]', /does not hold \{"machines": \[\.\.\.\]\}; restore it/],
    [
      'freshness.json',
      '{"seq',
      /is not valid JSON \(.*\); restore it from a backup, or write \{"sequence": N\}/,
    ],
    [
      'keys/1.json',
      '{"payloadType": 1}',
      /key set 1 \(.*keys\/1\.json\) is not an envelope \(.+\); restore the file/,
    ],
  ])('%s (%s) is named with what is wrong and what to do', async (name, text, message) => {
    const dataDir = await preparedDir();
    await writeFile(join(dataDir, name), text);
    const refused = await startServer({ dataDir, simulate: false }).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (error: unknown) => error as { code?: string; message: string },
    );
    expect(refused?.message).toMatch(message);
    expect(refused?.message).toContain(join(dataDir, name));
    expect(['STATE_FILE_INVALID', 'KEY_CHAIN_INVALID']).toContain(refused?.code);
  });
});
