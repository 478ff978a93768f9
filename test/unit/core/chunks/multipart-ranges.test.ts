import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { ByterangesReader, byterangesBoundary } from '#core/chunks/multipart-ranges.js';
import { text } from '#test/fakes.js';

const SIZE = 1000;
const part = (start: number, end: number, fill: number, boundary = 'B'): string =>
  `\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${start}-${end}/${SIZE}\r\n\r\n` +
  String.fromCharCode(fill).repeat(end - start + 1);

async function read(body: string, splitEvery = 7): Promise<[number, string][]> {
  const got: [number, string][] = [];
  const reader = new ByterangesReader('B', SIZE, (offset, bytes) => {
    got.push([offset, Buffer.from(bytes).toString('latin1')]);
    return Promise.resolve();
  });
  const bytes = text(body);
  for (let at = 0; at < bytes.length; at += splitEvery) {
    await reader.push(bytes.subarray(at, at + splitEvery));
  }
  if (!reader.done) throw new Error('not done');
  return got;
}

/** Joins consecutive runs of one part so the split size does not matter to the assertion. */
const joined = (runs: [number, string][]): [number, string][] =>
  runs.reduce<[number, string][]>((out, [offset, data]) => {
    const last = out[out.length - 1];
    if (last !== undefined && last[0] + last[1].length === offset) last[1] += data;
    else out.push([offset, data]);
    return out;
  }, []);

async function codeOf(body: string): Promise<string | undefined> {
  try {
    await read(body);
  } catch (error) {
    return error instanceof UpdateError ? error.code : String(error);
  }
  return undefined;
}

describe('ByterangesReader (RFC 9110 §14.6)', () => {
  it('hands on each part with its offset, whatever the network split', async () => {
    const body = `${part(0, 9, 97)}${part(500, 519, 98)}\r\n--B--\r\n`;
    for (const split of [1, 7, 64, 10_000]) {
      expect(joined(await read(body, split))).toEqual([
        [0, 'a'.repeat(10)],
        [500, 'b'.repeat(20)],
      ]);
    }
  });

  it('accepts a body without the leading line break', async () => {
    const body = `${part(0, 1, 97).slice(2)}\r\n--B--`;
    expect(joined(await read(body))).toEqual([[0, 'aa']]);
  });

  it('reads the boundary from the Content-Type, quoted or not', () => {
    expect(byterangesBoundary('multipart/byteranges; boundary=abc')).toBe('abc');
    expect(byterangesBoundary('Multipart/Byteranges;boundary="a b"')).toBe('a b');
    expect(byterangesBoundary('application/octet-stream')).toBeUndefined();
    expect(byterangesBoundary(undefined)).toBeUndefined();
  });

  const refusals: [string, string][] = [
    ['a body without a delimiter', 'garbage that is long enough to hold a delimiter'],
    ['a part without a Content-Range', '\r\n--B\r\nContent-Type: x\r\n\r\nzz\r\n--B--'],
    ['a part of another total size', '\r\n--B\r\nContent-Range: bytes 0-1/999\r\n\r\nzz\r\n--B--'],
    ['a part past the end', '\r\n--B\r\nContent-Range: bytes 999-1000/1000\r\n\r\nzz\r\n--B--'],
    ['a malformed delimiter', `${part(0, 1, 97)}\r\n--BXX`],
    ['bytes after the closing delimiter', `${part(0, 1, 97)}\r\n--B--\r\nmore`],
    ['part headers without end', `\r\n--B\r\n${'X-Filler: y\r\n'.repeat(100)}`],
  ];
  for (const [what, body] of refusals) {
    it(`refuses ${what} (SIZE_MISMATCH)`, async () => {
      expect(await codeOf(body)).toBe('SIZE_MISMATCH');
    });
  }
});
