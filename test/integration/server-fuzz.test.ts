/**
 * A generated test: well over 1,000 bad requests across every route of every area, each
 * checked for a 4xx with a valid error body (or the route's defined 200: revoke, chain
 * activity, health). Never a 5xx, never a crash. Deterministic: a seeded PRNG drives it.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { mulberry32 } from '#server/chain/seeded-prng.js';

interface Target {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** The route may answer 2xx to junk (its defined behaviour). */
  readonly lenient?: boolean;
  /** The route may redirect (OAuth authorize). */
  readonly redirects?: boolean;
  /** Fields of the route's JSON body, to send with the wrong types. */
  readonly fields?: readonly string[];
}

const SHA = 'ab'.repeat(32);
const TARGETS: readonly Target[] = [
  { method: 'GET', path: '/healthz', lenient: true },
  { method: 'POST', path: '/api/demo-key/mint', fields: ['subscription', 'label'] },
  { method: 'GET', path: '/api/updates/manifest' },
  { method: 'GET', path: `/api/updates/artifacts/${SHA}` },
  { method: 'GET', path: '/api/chain/active', lenient: true },
  { method: 'POST', path: '/api/oauth/token' },
  { method: 'POST', path: '/api/oauth/revoke', lenient: true },
  { method: 'POST', path: '/api/oauth/introspect', lenient: true },
  { method: 'GET', path: '/api/oauth/authorize', redirects: true },
  { method: 'GET', path: '/.well-known/openid-configuration', lenient: true },
  { method: 'GET', path: '/api/oauth/userinfo' },
  { method: 'POST', path: '/api/oauth/login' },
  // Without parameters it is the signed-out page: 200 is right for any query it ignores.
  { method: 'GET', path: '/api/oauth/end-session', lenient: true },
  { method: 'POST', path: '/api/dev/clock', fields: ['advance_ms'] },
  { method: 'POST', path: '/api/dev/faults', fields: ['route', 'status', 'drop', 'delay_ms'] },
  {
    method: 'POST',
    path: '/api/dev/releases',
    fields: ['registry_version', 'artifacts', 'expires_in_s', 'artifact_base_url'],
  },
  { method: 'POST', path: '/api/dev/subscriptions', fields: ['machine_id', 'status'] },
  { method: 'POST', path: '/api/dev/machines' },
  { method: 'POST', path: '/api/dev/transitions' },
  { method: 'POST', path: '/api/dev/oauth/codes' },
  { method: 'POST', path: '/api/dev/oauth/clients' },
];

interface Probe {
  readonly what: string;
  readonly target: Target;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

function generate(count: number, seed: number): Probe[] {
  // A seeded PRNG, so a failure names a reproducible case.
  const rnd = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const junk = (n: number): string =>
    Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(rnd() * 94))).join('');
  const wrongValues: readonly unknown[] = [
    null,
    1.5,
    -1,
    Number.POSITIVE_INFINITY,
    true,
    [],
    {},
    '',
    'x'.repeat(300),
    [1, 2],
  ];
  const shapes: readonly string[] = [
    '[]',
    '1',
    '"s"',
    'null',
    'true',
    '[{"a":1}]',
    '-0',
    '"\\u0000"',
  ];
  const malformed: readonly string[] = [
    '{',
    '{"a":',
    "{'a':1}",
    '{"a":1,}',
    'nul',
    '{"a":"\\x"}',
    '\u0000',
    '{}}',
    '['.repeat(50),
  ];
  const contentTypes: readonly string[] = [
    'text/plain',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'image/png',
    'application/jsonx',
    'json',
  ];
  const authJunk: readonly (() => string)[] = [
    () => `Basic ${junk(20)}`,
    () => `Bearer ${junk(10)}`,
    () => `Bearer  mk_${'A'.repeat(43)}`,
    () => `Bearer mk_${junk(43)}`,
    () => 'Bearer',
    () => `bearer mk_${'A'.repeat(42)}`,
    () => junk(30),
    () => `Bearer mk_${'A'.repeat(43)}, Bearer x`,
  ];
  const digests: readonly (() => string)[] = [
    () => junk(64).replace(/[/?#%]/g, 'a'),
    () => 'A'.repeat(64),
    () => 'a'.repeat(63),
    () => 'a'.repeat(65),
    () => '%2e%2e%2f%2e%2e',
    () => `${'a'.repeat(64)}%00`,
  ];
  const out: Probe[] = [];
  for (let i = 0; out.length < count; i++) {
    const target = pick(TARGETS);
    const kind = pick([
      'method',
      'content-type',
      'oversize',
      'malformed',
      'shape',
      'fields',
      'auth',
      'digest',
      'query',
      'path',
    ] as const);
    const json = { 'content-type': 'application/json' };
    const base = { target, method: target.method, path: target.path, headers: {} };
    switch (kind) {
      case 'method':
        out.push({ ...base, what: kind, method: pick(['PUT', 'PATCH']) });
        break;
      case 'content-type':
        if (target.method !== 'POST') continue;
        out.push({
          ...base,
          what: kind,
          headers: { 'content-type': pick(contentTypes) },
          body: Buffer.from(junk(1 + Math.floor(rnd() * 200))),
        });
        break;
      case 'oversize':
        if (target.method !== 'POST' || target.path === '/api/dev/releases') continue;
        out.push({
          ...base,
          what: kind,
          headers: json,
          body: Buffer.from(`{"a":"${'x'.repeat(17 * 1024 + Math.floor(rnd() * 20_000))}"}`),
        });
        break;
      case 'malformed':
        if (target.method !== 'POST') continue;
        out.push({ ...base, what: kind, headers: json, body: Buffer.from(pick(malformed)) });
        break;
      case 'shape':
        if (target.method !== 'POST' || target.path === '/api/oauth/revoke') continue;
        out.push({ ...base, what: kind, headers: json, body: Buffer.from(pick(shapes)) });
        break;
      case 'fields': {
        if (target.fields === undefined) continue;
        const field = pick(target.fields);
        const body = JSON.stringify({ [field]: pick(wrongValues) });
        out.push({ ...base, what: `${kind} ${field}`, headers: json, body: Buffer.from(body) });
        break;
      }
      case 'auth':
        if (!target.path.startsWith('/api/updates/')) continue;
        out.push({ ...base, what: kind, headers: { authorization: pick(authJunk)() } });
        break;
      case 'digest':
        out.push({
          ...base,
          target: { method: 'GET', path: '/api/updates/artifacts/:sha256' },
          method: 'GET',
          path: `/api/updates/artifacts/${pick(digests)()}`,
          what: kind,
          headers: rnd() < 0.5 ? {} : { authorization: pick(authJunk)() },
        });
        break;
      case 'query':
        if (target.method !== 'GET') continue;
        out.push({
          ...base,
          what: kind,
          path: `${target.path}?${pick(['limit', 'window', 'x', 'client_id', 'token'])}=${pick([
            '-1',
            'abc',
            '1e9',
            '%zz',
            '',
            '99999999999999999999',
            junk(8).replace(/[#&]/g, ''),
          ])}`,
        });
        break;
      case 'path':
        out.push({
          ...base,
          what: kind,
          path: pick([
            `${target.path}/extra`,
            `${target.path}%2f`,
            `/api/${junk(12).replace(/[?#%]/g, '_')}`,
            '/api/updates/%zz',
            `//${target.path}`,
            `/${'a'.repeat(3000)}`,
          ]),
        });
        break;
    }
  }
  return out;
}

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

function send(base: URL, agent: Agent, probe: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: probe.method,
        path: probe.path,
        headers: {
          ...probe.headers,
          ...(probe.body === undefined ? {} : { 'content-length': String(probe.body.length) }),
        },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end(probe.body);
  });
}

/** Why an answer breaks the rules, or undefined when it is fine. */
function violation(probe: Probe, answer: Answer): string | undefined {
  const { status } = answer;
  if (status >= 500 || status < 200) return `status ${status}`;
  if (status < 300) {
    return probe.target.lenient === true && probe.method === probe.target.method
      ? undefined
      : `status ${status} for bad input`;
  }
  if (status < 400) return probe.target.redirects === true ? undefined : `status ${status}`;
  if (!answer.type.startsWith('application/json')) return `content-type ${answer.type}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `body is not JSON: ${answer.body.slice(0, 80)}`;
  }
  const b = body as Record<string, unknown>;
  if (b['ok'] !== false || typeof b['code'] !== 'string')
    return `not an error body: ${answer.body.slice(0, 80)}`;
  return undefined;
}

function describeProbe(p: Probe): string {
  const body = p.body === undefined ? '' : ` ${p.body.toString('utf8').slice(0, 60)}`;
  return `${p.what} ${p.method} ${p.path.slice(0, 80)}${body}`;
}

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ dev: true, simulate: false });
});
afterAll(async () => {
  await server.close();
});

const SEED = 20_261_121;
const COUNT = 1200;

describe('bad requests across all routes', () => {
  it(`answers ${COUNT} generated bad requests (seed ${SEED}) with 4xx error bodies, never a 5xx`, async () => {
    const probes = generate(COUNT, SEED);
    const base = new URL(server.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const failures: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < probes.length) {
        const probe = probes[next++] as Probe;
        try {
          const answer = await send(base, agent, probe);
          const why = violation(probe, answer);
          if (why !== undefined) failures.push(`${describeProbe(probe)}: ${why}`);
        } catch (error) {
          failures.push(`${describeProbe(probe)}: ${String(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    agent.destroy();
    expect(probes.length).toBeGreaterThanOrEqual(1000);
    expect(failures.slice(0, 20)).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  const raw: [string, string][] = [
    ['a garbage request line', 'BLAH\r\n\r\n'],
    ['an unknown HTTP version', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost x\r\n\r\n'],
    [
      'a non-numeric Content-Length',
      'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    ],
    [
      'two different Content-Lengths',
      'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ],
    [
      'a bad chunked body',
      'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ],
    [
      'headers over the size limit',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ],
    ['a space in the path', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n'],
  ];
  for (const [what, text] of raw) {
    it(`answers ${what} on a raw socket with a 4xx error body`, async () => {
      const base = new URL(server.url);
      const reply = await new Promise<string>((resolve) => {
        let got = '';
        const socket = connect(Number(base.port), base.hostname, () => socket.end(text));
        socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
        socket.on('close', () => resolve(got));
        socket.on('error', () => resolve(got));
        socket.setTimeout(5000, () => socket.destroy());
      });
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
      const body = reply.slice(reply.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body)).toMatchObject({ ok: false, code: expect.any(String) as string });
    });
  }
});
