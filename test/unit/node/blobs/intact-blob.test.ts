import { describe, expect, it } from 'vitest';
import { BLOB_MTIME_S, isIntactBlob } from '#node/blobs/intact-blob.js';

const info = (over: Partial<{ file: boolean; size: number; mtimeMs: number }> = {}) => ({
  isFile: () => over.file ?? true,
  size: over.size ?? 4096,
  mtimeMs: over.mtimeMs ?? BLOB_MTIME_S * 1000,
});

describe('isIntactBlob', () => {
  it('holds for a regular file of the signed size with the sentinel mtime', () => {
    expect(isIntactBlob(info(), 4096)).toBe(true);
  });

  it('fails for another size, a touched mtime or something that is not a regular file', () => {
    expect(isIntactBlob(info({ size: 4095 }), 4096)).toBe(false);
    expect(isIntactBlob(info({ mtimeMs: BLOB_MTIME_S * 1000 + 1 }), 4096)).toBe(false);
    expect(isIntactBlob(info({ file: false }), 4096)).toBe(false);
  });
});
