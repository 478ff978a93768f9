/**
 * A stand-in for Electron's ClientRequest through a proxy, answering a 407 the way Chromium
 * does: a `login` event, a retry with the answer, an accepted answer kept in the session's
 * auth cache and sent unasked afterwards (so a second challenge means a refusal).
 */
import { EventEmitter } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { NetRequestFactory } from '#main/net-request-fetch.js';

/** Chromium's per-session HTTP auth cache for the proxy. */
export interface AuthCache {
  credential: string | null;
}

/** A ClientRequest stand-in that goes through `proxyUrl` and asks `login` on a 407. */
export function chromiumLike(proxyUrl: string, cache: AuthCache): NetRequestFactory {
  const at = new URL(proxyUrl);
  return (options) => {
    const emitter = new EventEmitter();
    const headers: Record<string, string> = {};
    let body = '';
    let current: ReturnType<typeof httpRequest> | null = null;
    const send = (): void => {
      const sent = { ...headers };
      if (cache.credential !== null) {
        sent['proxy-authorization'] = `Basic ${Buffer.from(cache.credential).toString('base64')}`;
      }
      current = httpRequest(
        {
          host: at.hostname,
          port: Number(at.port),
          method: options.method,
          path: options.url,
          headers: sent,
        },
        (res: IncomingMessage) => {
          if (res.statusCode === 407) {
            res.resume();
            const realm = /realm="([^"]*)"/.exec(String(res.headers['proxy-authenticate']))?.[1];
            const authInfo = {
              isProxy: true,
              scheme: 'basic',
              host: at.hostname,
              port: Number(at.port),
              realm: realm ?? '',
            };
            emitter.emit('login', authInfo, (username?: string, password?: string) => {
              if (username === undefined) {
                emitter.emit('error', new Error('net::ERR_PROXY_AUTH_REQUESTED'));
                return;
              }
              cache.credential = `${username}:${password ?? ''}`;
              send();
            });
            return;
          }
          const response = Object.assign(res, { statusMessage: res.statusMessage ?? '' });
          emitter.emit('response', response);
        },
      );
      current.on('error', (error) => emitter.emit('error', error));
      current.end(body === '' ? undefined : body);
    };
    const req = {
      on: (event: string, listener: (...args: never[]) => void) =>
        emitter.on(event, listener as (...args: unknown[]) => void),
      setHeader: (name: string, value: string) => {
        headers[name] = value;
      },
      write: (chunk: string) => {
        body += chunk;
      },
      end: send,
      abort: () => current?.destroy(),
    };
    return req;
  };
}
