/**
 * Proxy sign-in end to end on loopback: the app's fetch over a stand-in for Electron's
 * ClientRequest (Node http through the forward proxy helper, answering a 407 the way Chromium
 * does: a `login` event, a retry with the answer, the accepted answer kept in an auth cache),
 * with the proxy-login policy deciding. Electron itself is not started.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '#test/forward-proxy.js';
import { useLoopbackServer } from '#test/loopback-server.js';
import { createNetRequestFetch, type NetRequestLike } from '#main/net-request-fetch.js';
import { chromiumLike, type AuthCache } from './chromium-request-stand-in.js';
import { createProxyLogin, type Credential, type Question } from '#main/proxy-login.js';

const loopback = useLoopbackServer();
let proxy: ForwardProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function setup(answers: (Credential | null)[]) {
  const origin = await loopback.serve((_req, res) => res.end('registry says hi'));
  const port = Number(new URL(origin).port);
  proxy = await startForwardProxy({
    target: { host: '127.0.0.1', port },
    credentials: 'alice:right',
  });
  const questions: Question[] = [];
  const reports: string[] = [];
  const login = createProxyLogin({
    ask: (q) => {
      questions.push(q);
      return Promise.resolve(answers.shift() ?? null);
    },
    seal: { seal: (text) => Buffer.from(text), open: (box) => (box as Buffer).toString() },
    report: (level, message) => reports.push(`${level} ${message}`),
  });
  const cache: AuthCache = { credential: null };
  const doFetch = createNetRequestFetch(chromiumLike(proxy.url, cache), (c) =>
    login.onChallenge(c),
  );
  return { doFetch, questions, reports, proxy };
}

describe('proxy sign-in through a real proxy (ClientRequest stand-in)', () => {
  it('asks once, signs in, and later requests go through without asking', async () => {
    const s = await setup([{ username: 'alice', password: 'right' }]);
    const first = await s.doFetch('http://registry.test/a');
    expect(await first.text()).toBe('registry says hi');
    const second = await s.doFetch('http://registry.test/b');
    expect(second.status).toBe(200);
    await second.text();
    expect(s.questions).toHaveLength(1);
    expect(s.proxy.log.map((e) => e.target)).toContain('http://registry.test/b');
  });

  it('reports a refused password and asks again, saying so', async () => {
    const s = await setup([
      { username: 'alice', password: 'wrong' },
      { username: 'alice', password: 'right' },
    ]);
    expect(await (await s.doFetch('http://registry.test/a')).text()).toBe('registry says hi');
    expect(s.questions.map((q) => q.refused)).toEqual([false, true]);
    expect(s.reports).toContain(
      `warn proxy ${s.questions[0]?.proxy} refused the user name and password`,
    );
  });

  it('fails the request when the user cancels', async () => {
    const s = await setup([null]);
    await expect(s.doFetch('http://registry.test/a')).rejects.toThrow('ERR_PROXY_AUTH_REQUESTED');
  });
});

describe('net.request fetch', () => {
  it('hands a redirect back to the caller (redirect: manual)', async () => {
    const seen: string[] = [];
    const fake = (): NetRequestLike => {
      const emitter = new EventEmitter();
      return {
        on: (event: string, listener: (...args: never[]) => void) =>
          emitter.on(event, listener as (...args: unknown[]) => void),
        setHeader: (name: string, value: string) => seen.push(`${name}: ${value}`),
        write: () => undefined,
        end: () =>
          emitter.emit('redirect', 302, 'GET', 'https://elsewhere/', {
            location: ['https://elsewhere/'],
          }),
        abort: () => undefined,
      };
    };
    const response = await createNetRequestFetch(fake, () => Promise.resolve(null))('https://r/', {
      headers: { range: 'bytes=0-1' },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://elsewhere/');
    expect(seen).toEqual(['range: bytes=0-1']);
  });

  it('refuses an aborted signal before sending', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    let made = 0;
    const doFetch = createNetRequestFetch(
      () => {
        made += 1;
        throw new Error('not reached');
      },
      () => Promise.resolve(null),
    );
    await expect(doFetch('https://r/', { signal: controller.signal })).rejects.toThrow('stop');
    expect(made).toBe(0);
  });
});
