/**
 * The strict head parser of pipelined answers (src/node/http/pipeline-head.ts): only a plain
 * HTTP/1.1 200 with one Content-Length is framed; anything else is odd (node:http takes it).
 */
import { describe, expect, it } from 'vitest';
import { parsePlainHead } from '#node/http/pipeline-head.js';

const head = (...lines: string[]): string => lines.join('\r\n');

describe('parsePlainHead', () => {
  it('reads status, headers in order, the length and Connection: close', () => {
    const parsed = parsePlainHead(
      head('HTTP/1.1 200 OK', 'Content-Length: 12', 'ETag:  "e1" ', 'Connection: close'),
    );
    expect(parsed).toEqual({
      status: 200,
      rawHeaders: ['Content-Length', '12', 'ETag', '"e1"', 'Connection', 'close'],
      contentLength: 12,
      close: true,
    });
  });

  it('keeps the connection when it is not closed', () => {
    expect(parsePlainHead(head('HTTP/1.1 200 OK', 'content-length: 0'))?.close).toBe(false);
  });

  it.each([
    ['another status', head('HTTP/1.1 404 Not Found', 'Content-Length: 3')],
    ['a 1xx', head('HTTP/1.1 100 Continue', 'Content-Length: 3')],
    ['HTTP/1.0', head('HTTP/1.0 200 OK', 'Content-Length: 3')],
    ['chunked coding', head('HTTP/1.1 200 OK', 'Transfer-Encoding: chunked')],
    [
      'chunked with a length',
      head('HTTP/1.1 200 OK', 'Content-Length: 3', 'Transfer-Encoding: chunked'),
    ],
    ['no Content-Length', head('HTTP/1.1 200 OK', 'ETag: "x"')],
    ['a length that is not digits', head('HTTP/1.1 200 OK', 'Content-Length: 3x')],
    ['a negative length', head('HTTP/1.1 200 OK', 'Content-Length: -1')],
    ['conflicting lengths', head('HTTP/1.1 200 OK', 'Content-Length: 3', 'Content-Length: 4')],
    ['a folded line', head('HTTP/1.1 200 OK', 'Content-Length: 3', ' folded')],
    ['a line without a colon', head('HTTP/1.1 200 OK', 'Content-Length: 3', 'junk')],
    ['a bare LF', 'HTTP/1.1 200 OK\r\nContent-Length: 3\nX: y'],
    ['a space in a name', head('HTTP/1.1 200 OK', 'Content Length: 3')],
  ])('calls %s odd', (_what, text) => {
    expect(parsePlainHead(text)).toBeUndefined();
  });

  it('strips only spaces and tabs around a value, and keeps an empty one', () => {
    const parsed = parsePlainHead(
      head('HTTP/1.1 200 OK', 'Content-Length:\t 7 \t', 'X-A:', 'X-B: \t ', 'X-C:\u00a0v\u00a0'),
    );
    expect(parsed?.contentLength).toBe(7);
    expect(parsed?.rawHeaders).toEqual([
      'Content-Length',
      '7',
      'X-A',
      '',
      'X-B',
      '',
      'X-C',
      '\u00a0v\u00a0',
    ]);
  });

  it('takes repeated equal lengths', () => {
    const text = head('HTTP/1.1 200 OK', 'Content-Length: 3', 'Content-Length: 3');
    expect(parsePlainHead(text)?.contentLength).toBe(3);
  });
});
