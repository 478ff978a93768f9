import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { bearer, mintKey, testApp } from '#test/server-harness.js';

let built: BuiltApp | undefined;
afterEach(async () => {
  await built?.app.close();
});

/** Collects pino's JSON lines in memory. */
function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

describe('logging (pino, redacted)', () => {
  it('logs one JSON line per request without the machine key or the query secret', async () => {
    const { stream, lines } = sink();
    built = await testApp({ logLevel: 'info' }, { logStream: stream });
    const key = await mintKey(built.app);
    await built.app.inject({ method: 'GET', url: '/api/updates/manifest', headers: bearer(key) });
    await built.app.inject({ method: 'GET', url: '/healthz?token=abc123' });
    const requests = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'request');
    expect(requests.map((r) => r['status'])).toEqual([200, 200, 200]);
    const all = lines.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain('abc123');
  });

  it('redacts credentials in objects that code logs', async () => {
    const { stream, lines } = sink();
    built = await testApp({ logLevel: 'info' }, { logStream: stream });
    built.app.log.info(
      {
        machine_key: 'mk_secret',
        req: { headers: { authorization: 'Bearer mk_secret' } },
        body: { client_secret: 's3' },
      },
      'probe',
    );
    const probe = lines.find((l) => l.includes('"probe"')) ?? '';
    expect(probe).toContain('[redacted]');
    expect(probe).not.toContain('mk_secret');
    expect(probe).not.toContain('s3"');
  });

  it('logs nothing per request at warn level', async () => {
    const { stream, lines } = sink();
    built = await testApp({ logLevel: 'warn' }, { logStream: stream });
    await built.app.inject({ method: 'GET', url: '/healthz' });
    expect(lines).toEqual([]);
  });
});
