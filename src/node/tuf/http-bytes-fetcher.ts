/**
 * The TufFetcher port over `node:http` / `node:https`: one GET, no redirect followed, the body
 * read up to a byte cap (TUF spec §5.2.2: an endless answer must not exhaust the client).
 * 403 and 404 are NOT_FOUND (the end of the root chain, TUF spec §5.3.3); any other non-200
 * answer, a network error or a timeout is FETCH_FAILED; more than the cap is TOO_LARGE.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TufError } from '#protocol/tuf/index.js';
import type { TufFetcher } from '#core/tuf/index.js';

export interface HttpBytesFetcherOptions {
  /** Longest silence (connect or between body chunks), in milliseconds. */
  readonly timeoutMs?: number;
}

const URL_PARTS = /^(https?):\/\/([^/?#]+)(\/.*)?$/;

/**
 * Splits a URL without normalising its path: a target path is the repository's name for a
 * file and is sent as written ("a/../b" is not folded), only characters HTTP cannot carry
 * (controls, spaces, non-ASCII) being percent-encoded.
 */
export function requestTarget(url: string): { secure: boolean; host: string; path: string } {
  const m = URL_PARTS.exec(url);
  if (m === null) throw new TufError('FETCH_FAILED', 'not an http(s) URL', { url });
  const path = (m[3] ?? '/').replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  return { secure: m[1] === 'https', host: m[2] ?? '', path };
}

export class HttpBytesFetcher implements TufFetcher {
  private readonly timeoutMs: number;

  constructor(options: HttpBytesFetcherOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  get(url: string, maxBytes: number): Promise<Uint8Array> {
    const target = requestTarget(url);
    const origin = new URL(`${target.secure ? 'https' : 'http'}://${target.host}/`);
    const send = target.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send({
        protocol: origin.protocol,
        hostname: origin.hostname.replace(/^\[|\]$/g, ''),
        port: origin.port === '' ? undefined : Number(origin.port),
        path: target.path,
        method: 'GET',
        timeout: this.timeoutMs,
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (cause) => reject(failed(url, cause)));
      req.on('response', (res) => {
        readBody(res, url, maxBytes).then(resolve, reject);
      });
      req.end();
    });
  }
}

function readBody(res: IncomingMessage, url: string, maxBytes: number): Promise<Uint8Array> {
  const status = res.statusCode ?? 0;
  if (status !== 200) {
    res.resume();
    const code = status === 403 || status === 404 ? 'NOT_FOUND' : 'FETCH_FAILED';
    return Promise.reject(new TufError(code, `HTTP ${status}`, { url, status }));
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    return Promise.reject(tooLarge(url, maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    res.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        res.destroy();
        reject(tooLarge(url, maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    res.on('error', (cause) => reject(failed(url, cause)));
    // A connection cut mid-body ends without 'end': the bytes so far are not the answer.
    res.on('close', () => {
      if (!res.complete) reject(failed(url, new Error('connection closed mid-body')));
    });
    res.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
  });
}

function tooLarge(url: string, maxBytes: number): TufError {
  return new TufError('TOO_LARGE', `more than ${maxBytes} bytes`, { url, max_bytes: maxBytes });
}

function failed(url: string, cause: unknown): TufError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new TufError('FETCH_FAILED', message, { url }, { cause });
}
