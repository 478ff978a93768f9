/** The kept manifest answer on disk (src/node/answer-file.ts, docs/PROTOCOL.md §2.7.6). */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerFile } from '../../../src/node/answer-file.js';
import { tempDirs } from './temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const bytes = new TextEncoder().encode('{"ok":true,"format":2}');

describe('AnswerFile', () => {
  it('loads nothing before the first save, then the saved answer', async () => {
    const cache = new AnswerFile(await dirs.make());
    expect(await cache.load()).toBeUndefined();
    await cache.save({ etag: '"abc"', bytes });
    const kept = await cache.load();
    expect(kept?.etag).toBe('"abc"');
    expect(new Uint8Array(kept?.bytes ?? [])).toEqual(bytes);
  });

  it('loads a file whose bytes no longer match their digest as no answer', async () => {
    const dir = await dirs.make();
    const cache = new AnswerFile(dir);
    await cache.save({ etag: '"abc"', bytes });
    const path = join(dir, 'answer');
    const file = await readFile(path);
    file.writeUInt8((file.at(-2) ?? 0) ^ 0x01, file.length - 2);
    await writeFile(path, file);
    expect(await cache.load()).toBeUndefined();
    await writeFile(path, '"abc"\n');
    expect(await cache.load()).toBeUndefined();
  });

  it('keeps no ETag it could not send back verbatim', async () => {
    const cache = new AnswerFile(await dirs.make());
    await cache.save({ etag: '"a"\r\nx-injected: 1', bytes });
    await cache.save({ etag: 'unquoted', bytes });
    expect(await cache.load()).toBeUndefined();
    await cache.save({ etag: 'W/"weak"', bytes });
    expect((await cache.load())?.etag).toBe('W/"weak"');
  });
});
