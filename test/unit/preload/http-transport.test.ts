/** The web window's transport (src/preload/http-transport.ts) with a fake fetch and stream. */
import { describe, expect, it } from 'vitest';
import { httpTransport, WebBridgeError } from '#preload/http-transport.js';
import { createBridgeApi } from '#preload/ipc-contract.js';

class FakeStream {
  readonly handlers = new Map<string, (event: { data: string }) => void>();
  addEventListener(name: string, fn: (event: { data: string }) => void): void {
    this.handlers.set(name, fn);
  }
}

function setup(answer: () => Promise<Response>) {
  const requests: { url: string; init: RequestInit | undefined }[] = [];
  const streams: FakeStream[] = [];
  const api = createBridgeApi(
    httpTransport({
      fetch: (url, init) => {
        requests.push({ url: url as string, init });
        return answer();
      },
      openStream: () => {
        const stream = new FakeStream();
        streams.push(stream);
        return stream as unknown as EventSource;
      },
    }),
  );
  return { api, requests, streams };
}

const json = (status: number, body: unknown): Promise<Response> =>
  Promise.resolve(new Response(JSON.stringify(body), { status }));

describe('HTTP transport of the bridge', () => {
  it('POSTs each operation as JSON {"args": [...]} to /api/bridge/<name>', async () => {
    const { api, requests } = setup(() => json(200, { ok: true, result: { phase: 'idle' } }));
    await expect(api.getStatus()).resolves.toEqual({ phase: 'idle' });
    expect(requests[0]?.url).toBe('/api/bridge/getStatus');
    expect(requests[0]?.init).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"args":[]}',
      credentials: 'same-origin',
    });
  });

  it('rejects with the server’s code on a refusal', async () => {
    const { api } = setup(() =>
      json(401, { ok: false, code: 'UNAUTHORIZED', error: 'open the printed address' }),
    );
    const error = (await api.checkNow().catch((e: unknown) => e)) as WebBridgeError;
    expect(error).toBeInstanceOf(WebBridgeError);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toBe('open the printed address');
  });

  it('BRIDGE: the service cannot be reached, or answers something that is not ours', async () => {
    const down = setup(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(down.api.getActivity()).rejects.toMatchObject({ code: 'BRIDGE' });
    const garbage = setup(() => Promise.resolve(new Response('<html>', { status: 502 })));
    await expect(garbage.api.getActivity()).rejects.toMatchObject({
      code: 'BRIDGE',
      message: 'HTTP 502',
    });
  });

  it('opens one event stream for every subscription, delivers JSON payloads, ignores others', () => {
    const { api, streams } = setup(() => json(200, { ok: true }));
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = api.onStatus((s) => a.push(s));
    api.onStatus((s) => b.push(s));
    expect(streams).toHaveLength(1);
    const deliver = streams[0]?.handlers.get('status');
    deliver?.({ data: '{"phase":"checking"}' });
    deliver?.({ data: 'not json' });
    offA();
    deliver?.({ data: '{"phase":"idle"}' });
    expect(a).toEqual([{ phase: 'checking' }]);
    expect(b).toEqual([{ phase: 'checking' }, { phase: 'idle' }]);
  });
});
