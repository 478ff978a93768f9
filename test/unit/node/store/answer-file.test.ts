/** The kept manifest answer on disk (src/node/store/answer-file.ts, docs/PROTOCOL.md §2.7.6). */
import { execFileSync } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerFile } from '#node/store/answer-file.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const bytes = new TextEncoder().encode('{"ok":true,"format":2}');
const URL = 'https://updates.example/api/updates/manifest';

describe('AnswerFile', () => {
  it('loads nothing before the first save, then the saved answer', async () => {
    const cache = new AnswerFile(await dirs.make());
    expect(await cache.load(URL)).toBeUndefined();
    await cache.save(URL, { etag: '"abc"', bytes });
    const kept = await cache.load(URL);
    expect(kept?.etag).toBe('"abc"');
    expect(new Uint8Array(kept?.bytes ?? [])).toEqual(bytes);
  });

  it('loads a file whose bytes no longer match their digest as no answer', async () => {
    const dir = await dirs.make();
    const cache = new AnswerFile(dir);
    await cache.save(URL, { etag: '"abc"', bytes });
    const path = join(dir, 'answer');
    const file = await readFile(path);
    file.writeUInt8((file.at(-2) ?? 0) ^ 0x01, file.length - 2);
    await writeFile(path, file);
    expect(await cache.load(URL)).toBeUndefined();
    await writeFile(path, '"abc"\n');
    expect(await cache.load(URL)).toBeUndefined();
  });

  it('keeps no ETag it could not send back verbatim', async () => {
    const cache = new AnswerFile(await dirs.make());
    await cache.save(URL, { etag: '"a"\r\nx-injected: 1', bytes });
    await cache.save(URL, { etag: 'unquoted', bytes });
    expect(await cache.load(URL)).toBeUndefined();
    await cache.save(URL, { etag: 'W/"weak"', bytes });
    expect((await cache.load(URL))?.etag).toBe('W/"weak"');
  });

  it('offers an answer only to the URL it came from, and never writes that URL', async () => {
    const dir = await dirs.make();
    const cache = new AnswerFile(dir);
    const withUserInfo = 'https://qa:hunter2@updates.example/api/updates/manifest';
    await cache.save(withUserInfo, { etag: '"abc"', bytes });
    expect(await cache.load('https://mirror.example/api/updates/manifest')).toBeUndefined();
    expect((await cache.load(withUserInfo))?.etag).toBe('"abc"');
    expect((await readFile(join(dir, 'answer'))).includes('hunter2')).toBe(false);
  });

  it('loads a file of the older form (no URL line) as no answer', async () => {
    const dir = await dirs.make();
    await writeFile(join(dir, 'answer'), '"abc"\n' + 'f'.repeat(64) + '\n{}');
    expect(await new AnswerFile(dir).load(URL)).toBeUndefined();
  });
});

// docs/UPDATER.md §2: nothing in DIR/.updater is read or written through a link, and a FIFO
// there must not block the one thread (the run hung for good, deaf to the stall timer).
describe('AnswerFile over entries that are not regular files', () => {
  it('loads a FIFO at answer as no answer, at once', async () => {
    const dir = await dirs.make();
    execFileSync('mkfifo', ['-m', '0600', join(dir, 'answer')]);
    expect(await new AnswerFile(dir).load(URL)).toBeUndefined();
  }, 2000);

  it('does not follow a link at answer', async () => {
    const dir = await dirs.make();
    const elsewhere = await dirs.make();
    await new AnswerFile(elsewhere).save(URL, { etag: '"abc"', bytes });
    await symlink(join(elsewhere, 'answer'), join(dir, 'answer'));
    expect(await new AnswerFile(dir).load(URL)).toBeUndefined();
  });

  it('refuses a FIFO at answer.tmp with STATE_UNSAFE instead of blocking on it', async () => {
    const dir = await dirs.make();
    execFileSync('mkfifo', ['-m', '0600', join(dir, 'answer.tmp')]);
    await expect(new AnswerFile(dir).save(URL, { etag: '"abc"', bytes })).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
    });
  }, 2000);

  it('writes nothing through a link at answer.tmp', async () => {
    const dir = await dirs.make();
    const outside = join(await dirs.make(), 'precious');
    await writeFile(outside, 'keep me');
    await symlink(outside, join(dir, 'answer.tmp'));
    await expect(new AnswerFile(dir).save(URL, { etag: '"abc"', bytes })).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
    });
    expect(await readFile(outside, 'utf8')).toBe('keep me');
  });
});
