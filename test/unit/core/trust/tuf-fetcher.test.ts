/**
 * The TUF workflow's fetcher over the run's HTTP context: the machine key as bearer, the URL
 * the workflow asked for (its nonce included), gzip offered, 404 (and a non-subscription 403) as the end of the root walk,
 * the byte cap, and today's codes for everything else.
 */
import { describe, expect, it } from 'vitest';
import { runTufFetcher } from '#core/trust/index.js';
import {
  ScriptedFetcher,
  httpContextOf,
  type ScriptedResponse,
  type SeenRequest,
} from '#test/fakes.js';

const signal = new AbortController().signal;
const BASE = 'http://updates.test/api/updates/tuf/';
const body = (text: string, status = 200): ScriptedResponse => ({
  status,
  chunks: [new TextEncoder().encode(text)],
});

function fetcherFor(handler: (req: SeenRequest) => ScriptedResponse) {
  const scripted = new ScriptedFetcher(handler);
  const { http } = httpContextOf(scripted);
  return { tuf: runTufFetcher(http, signal), scripted };
}

describe('runTufFetcher', () => {
  it('sends the machine key to the URL asked for, nonce included, and returns the body', async () => {
    const { tuf, scripted } = fetcherFor(() => body('{"signed":{}}'));
    await tuf.get(`${BASE}1.snapshot.json`, 1000);
    const ts = await tuf.get(`${BASE}timestamp.json?nonce=bm9uY2U`, 1000);
    expect(scripted.seen.map((r) => r.url)).toEqual([
      `${BASE}1.snapshot.json`,
      `${BASE}timestamp.json?nonce=bm9uY2U`,
    ]);
    expect(scripted.seen[0]?.headers['authorization']).toMatch(/^Bearer /);
    expect(new TextDecoder().decode(ts)).toBe('{"signed":{}}');
  });

  it('answers 404 and a 403 without a subscription code as TufError NOT_FOUND', async () => {
    for (const status of [404, 403]) {
      const { tuf } = fetcherFor(() => body('{"ok":false,"code":"NOT_FOUND"}', status));
      await expect(tuf.get(`${BASE}2.root.json`, 1000)).rejects.toMatchObject({
        name: 'TufError',
        code: 'NOT_FOUND',
      });
    }
  });

  it('keeps SUBSCRIPTION_INACTIVE and 401 as the updater codes of the manifest GET', async () => {
    const inactive = fetcherFor(() => body('{"ok":false,"code":"SUBSCRIPTION_INACTIVE"}', 403));
    await expect(inactive.tuf.get(`${BASE}2.root.json`, 1000)).rejects.toMatchObject({
      code: 'SUBSCRIPTION_INACTIVE',
    });
    const refused = fetcherFor(() => body('{"ok":false,"code":"INVALID_MACHINE_KEY"}', 401));
    await expect(refused.tuf.get(`${BASE}timestamp.json`, 1000)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('refuses a body over the cap as TufError TOO_LARGE', async () => {
    const { tuf } = fetcherFor(() => body('x'.repeat(100)));
    await expect(tuf.get(`${BASE}timestamp.json`, 10)).rejects.toMatchObject({
      name: 'TufError',
      code: 'TOO_LARGE',
    });
  });
});
