/**
 * `fetch` over Electron's `net.request` (ClientRequest), for one reason: proxy sign-in
 * (docs/DESKTOP.md "Proxy sign-in"). Electron's `net.fetch` builds a ClientRequest and adds no
 * `login` listener, and a ClientRequest without one cancels every authentication challenge;
 * `app.on('login')` is emitted for web contents, never for the main process's own requests.
 * Here each request answers its challenges through the proxy-login policy.
 *
 * Electron-free: the request factory is injected (net.request in the app, a Node-backed
 * stand-in in the tests). What the app's callers need of fetch: method, headers, a string
 * body, an abort signal, `redirect: 'manual'` (the core follows redirects itself,
 * docs/DESKTOP.md "Network"), a streamed body.
 */
import { Readable } from 'node:stream';
import type { Challenge, Credential } from './proxy-login.js';

/** The slice of Electron's IncomingMessage used here. */
export interface NetResponseLike extends Readable {
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly headers: Record<string, string | string[]>;
}

/** The slice of Electron's ClientRequest used here. */
export interface NetRequestLike {
  on(event: 'response', listener: (response: NetResponseLike) => void): unknown;
  on(
    event: 'login',
    listener: (
      authInfo: Challenge,
      callback: (username?: string, password?: string) => void,
    ) => void,
  ): unknown;
  on(
    event: 'redirect',
    listener: (
      statusCode: number,
      method: string,
      redirectUrl: string,
      responseHeaders: Record<string, string[]>,
    ) => void,
  ): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  setHeader(name: string, value: string): void;
  write(chunk: string): void;
  end(): void;
  abort(): void;
}

export type NetRequestFactory = (options: {
  url: string;
  method: string;
  redirect: 'manual';
}) => NetRequestLike;

export type AnswerChallenge = (challenge: Challenge) => Promise<Credential | null>;

function headersOf(raw: Record<string, string | string[]>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** Proxy challenges go to `answer`; no credential (or a failed question) cancels the sign-in. */
function answerLogins(req: NetRequestLike, answer: AnswerChallenge): void {
  req.on('login', (authInfo, callback) => {
    answer(authInfo).then(
      (credential) =>
        credential === null ? callback() : callback(credential.username, credential.password),
      () => callback(),
    );
  });
}

/** The answer, as a fetch Response: a 3xx handed over as is, else the status and body. */
function settleOnAnswer(
  req: NetRequestLike,
  init: RequestInit | undefined,
  succeed: (response: Response) => void,
): void {
  // `redirect: 'manual'`: hand the 3xx to the caller, as fetch does; not following it
  // synchronously makes Electron end the request, which is wanted.
  req.on('redirect', (statusCode, _method, _url, responseHeaders) => {
    succeed(new Response(null, { status: statusCode, headers: headersOf(responseHeaders) }));
  });
  req.on('response', (response) => {
    const empty = [101, 204, 205, 304].includes(response.statusCode) || init?.method === 'HEAD';
    const body = empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
    succeed(
      new Response(body, {
        status: response.statusCode,
        statusText: response.statusMessage,
        headers: headersOf(response.headers),
      }),
    );
  });
}

/** Sends the headers and a string body, then ends the request; other bodies are refused. */
function sendRequest(
  req: NetRequestLike,
  init: RequestInit | undefined,
  fail: (error: Error) => void,
): void {
  new Headers(init?.headers).forEach((value, name) => req.setHeader(name, value));
  if (typeof init?.body === 'string') req.write(init.body);
  else if (init?.body !== undefined && init.body !== null) {
    fail(new TypeError('only string bodies are sent'));
    req.abort();
    return;
  }
  req.end();
}

const abortReason = (signal: AbortSignal | null): Error =>
  signal?.reason instanceof Error ? signal.reason : new Error('aborted');

/** A fetch whose proxy challenges go to `answer`. */
export function createNetRequestFetch(request: NetRequestFactory, answer: AnswerChallenge) {
  return (input: string | URL, init?: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const signal = init?.signal ?? null;
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      const req = request({
        url: String(input),
        method: init?.method ?? 'GET',
        redirect: 'manual',
      });
      let settled = false;
      const onAbort = (): void => {
        req.abort();
        fail(abortReason(signal));
      };
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      answerLogins(req, answer);
      settleOnAnswer(req, init, (response) => {
        if (settled) return;
        settled = true;
        resolve(response);
      });
      req.on('error', fail);
      sendRequest(req, init, fail);
    });
}
