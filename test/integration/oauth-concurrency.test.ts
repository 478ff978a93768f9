/**
 * Concurrency over real sockets (docs/ARCHITECTURE.md §Habits): T-19, 100 concurrent redemptions of one code
 * through startServer() on loopback, exactly one 200; and R-12, a one-shot 503 + Retry-After on
 * the revoke endpoint through the dev fault API.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '#server/compose/start-server.js';
import { startServer } from '#server/compose/start-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dev: true, seed: 3 });
});
afterAll(async () => {
  await server.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One POST on a fresh connection (no keep-alive), so the requests really race. */
function post(path: string, form: Record<string, string>): Promise<Answer> {
  const payload = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

it('T-19 atomic single use: 100 concurrent redemptions, exactly one 200', async () => {
  const m = server.oauth.mintCode({
    client_id: 'desktop-app',
    redirect_uri: 'http://127.0.0.1:41000/callback',
  });
  const form = {
    grant_type: 'authorization_code',
    client_id: 'desktop-app',
    code: m.code,
    redirect_uri: m.redirect_uri,
    code_verifier: m.code_verifier ?? '',
  };
  const answers = await Promise.all(
    Array.from({ length: 100 }, () => post('/api/oauth/token', form)),
  );
  const ok = answers.filter((a) => a.status === 200);
  expect(ok).toHaveLength(1);
  const refused = answers.filter((a) => a.status === 400);
  expect(refused).toHaveLength(99);
  for (const a of refused) expect(JSON.parse(a.body)).toMatchObject({ error: 'invalid_grant' });
  // T-20: the replays revoked the family, so the winner's refresh token is dead too.
  const winner = JSON.parse(ok[0]?.body ?? '{}') as { refresh_token: string };
  const refresh = await post('/api/oauth/token', {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: winner.refresh_token,
  });
  expect(refresh.status).toBe(400);
});

it('R-12 fault injection: a one-shot 503 with Retry-After on revoke, then 200 again', async () => {
  server.faults.add({ route: 'POST /api/oauth/revoke', status: 503, retry_after_s: 2 });
  const first = await post('/api/oauth/revoke', { token: 'x' });
  expect(first.status).toBe(503);
  expect(first.headers['retry-after']).toBe('2');
  const second = await post('/api/oauth/revoke', { token: 'x' });
  expect(second.status).toBe(200);
  expect(JSON.parse(second.body)).toEqual({ ok: true });
});
