import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACT_MIN_LINES, RecordJournal } from '#server/platform/record-journal.js';

interface Rec {
  id: string;
  n: number;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = async (): Promise<RecordJournal<Rec>> => {
  const j = new RecordJournal<Rec>({
    snapshot: join(dir, 'things.json'),
    member: 'things',
    idOf: (r) => r.id,
    remedy: 'restore it',
  });
  await j.load();
  return j;
};
const ids = (j: RecordJournal<Rec>): Record<string, number> =>
  Object.fromEntries([...j.records.values()].map((r) => [r.id, r.n]));

describe('RecordJournal (docs/SERVER.md §Data directory)', () => {
  it('reads a snapshot of the old format as it is (migration), then replays changes', async () => {
    await writeFile(
      join(dir, 'things.json'),
      JSON.stringify({ version: 1, things: [{ id: 'a', n: 1 }] }),
    );
    const j = await open();
    await j.put({ id: 'b', n: 2 });
    await j.put({ id: 'a', n: 3 });
    await j.delete('b');
    await j.put({ id: 'c', n: 4 });
    expect(ids(await open())).toEqual({ a: 3, c: 4 });
    await j.clear();
    await j.put({ id: 'd', n: 5 });
    expect(ids(await open())).toEqual({ d: 5 });
  });

  it('appends one line per change, not a copy of every record', async () => {
    const j = await open();
    for (let i = 0; i < 50; i += 1) await j.put({ id: `r${i}`, n: i });
    const before = (await stat(join(dir, 'things.journal'))).size;
    await j.put({ id: 'one-more', n: 0 });
    const grew = (await stat(join(dir, 'things.journal'))).size - before;
    expect(grew).toBeLessThan(60);
  });

  it('drops a torn last line (a crash mid-append), refuses a bad line before it by path', async () => {
    const j = await open();
    await j.put({ id: 'a', n: 1 });
    await appendFile(join(dir, 'things.journal'), '{"put":{"id":"b"');
    expect(ids(await open())).toEqual({ a: 1 });
    await appendFile(join(dir, 'things.journal'), '\n{"put":{"id":"c","n":2}}\n');
    await expect(open()).rejects.toMatchObject({
      code: 'STATE_FILE_INVALID',
      message: expect.stringContaining(join(dir, 'things.journal')) as unknown,
    });
  });

  it('compacts into the snapshot once the journal outgrows it, losing nothing', async () => {
    const j = await open();
    await Promise.all(
      Array.from({ length: COMPACT_MIN_LINES + 5 }, (_, i) => j.put({ id: `r${i % 10}`, n: i })),
    );
    await j.put({ id: 'last', n: -1 });
    const snapshot = JSON.parse(await readFile(join(dir, 'things.json'), 'utf8')) as {
      things: Rec[];
    };
    expect(snapshot.things.length).toBeGreaterThanOrEqual(10);
    const again = ids(await open());
    expect(Object.keys(again)).toHaveLength(11);
    expect(again['last']).toBe(-1);
  });
});
