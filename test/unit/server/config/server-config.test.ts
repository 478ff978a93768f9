/**
 * The config file's validation (docs/SERVER.md §Config file): a full example is accepted and
 * normalised; every refusal is CONFIG_INVALID and names the source and the JSON path.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#server/config/load-config.js';
import { validateConfig } from '#server/config/server-config.js';
import { isServerError } from '#server/server-error.js';

const KEY = `mk_${'A'.repeat(43)}`;

function refusal(value: unknown): string {
  try {
    validateConfig(value, 'qa.json', '/base');
  } catch (error) {
    if (!isServerError(error)) throw error;
    expect(error.code).toBe('CONFIG_INVALID');
    return error.message;
  }
  throw new Error('accepted');
}

describe('validateConfig', () => {
  it('accepts every section and normalises paths, hex and times', () => {
    const config = validateConfig(
      {
        $schema: './schema.json',
        node_key: { secret_key_hex: 'AB'.repeat(32) },
        lifetimes: { freshness_s: 600, authorization_code_s: 30, access_token_s: 60 },
        oauth: {
          clients: [{ client_id: 'spa', redirect_uris: ['https://spa.test/cb'] }],
          claims: { subjects: { alice: { email: 'a@x.test' } }, clients: { spa: { t: 1 } } },
          login_page: false,
        },
        machines: [
          { machine_key: KEY, subscription: 'active', expires_at: '2030-01-01T00:00:00Z' },
        ],
        releases: [{ version: '1.0.0', folder: 'build' }],
        chain: { simulate: false, machines: [{ id: 'm-1', name: 'One', visibility: 'public' }] },
      },
      'qa.json',
      '/base',
    );
    expect(config.node_key).toEqual({ secret_key_hex: 'ab'.repeat(32) });
    expect(config.releases).toEqual([{ version: '1.0.0', folder: '/base/build' }]);
    expect(config.machines?.[0]?.expires_at).toBe('2030-01-01T00:00:00.000Z');
    expect(config.oauth?.claims?.subjects?.['alice']).toEqual({ email: 'a@x.test' });
  });

  it.each([
    ['not an object', [], '$: must be a JSON object'],
    ['an unknown top-level field', { port: 1 }, '$.port: unknown field'],
    [
      'a short client secret',
      {
        oauth: {
          clients: [{ client_id: 'x', client_secret: 'short', redirect_uris: ['https://x.test/'] }],
        },
      },
      '$.oauth.clients[0].client_secret: must be at least 32 bytes',
    ],
    [
      'a client without redirect URIs',
      { oauth: { clients: [{ client_id: 'x' }] } },
      '$.oauth.clients[0]: client x: no redirect URI registered',
    ],
    [
      'an unknown client field',
      { oauth: { clients: [{ client_id: 'x', grant_types: [] }] } },
      '$.oauth.clients[0].grant_types: unknown field',
    ],
    [
      'a client listed twice',
      {
        oauth: {
          clients: [
            { client_id: 'x', redirect_uris: ['https://x.test/'] },
            { client_id: 'x', redirect_uris: ['https://x.test/'] },
          ],
        },
      },
      '$.oauth.clients[1].client_id: client x is listed twice',
    ],
    [
      'a reserved claim',
      { oauth: { claims: { subjects: { alice: { aud: 'x' } } } } },
      '$.oauth.claims.subjects.alice: claim aud is set by the server',
    ],
    [
      'a subject with a space',
      { oauth: { claims: { subjects: { 'a b': {} } } } },
      '$.oauth.claims.subjects["a b"]: a subject is 1-255',
    ],
    [
      'a malformed machine key',
      { machines: [{ machine_key: 'mk_short' }] },
      '$.machines[0].machine_key: must be mk_',
    ],
    [
      'an expiry on an inactive machine',
      {
        machines: [
          { machine_key: KEY, subscription: 'inactive', expires_at: '2030-01-01T00:00:00Z' },
        ],
      },
      '$.machines[0].expires_at: only an active subscription expires',
    ],
    [
      'a bad expiry',
      { machines: [{ machine_key: KEY, expires_at: 'tomorrow' }] },
      '$.machines[0].expires_at: must be an RFC 3339 time',
    ],
    [
      'a bad subscription',
      { machines: [{ machine_key: KEY, subscription: 'paid' }] },
      '$.machines[0].subscription: must be "active" or "inactive"',
    ],
    [
      'releases out of order',
      {
        releases: [
          { version: '1.1.0', folder: 'a' },
          { version: '1.0.0', folder: 'b' },
        ],
      },
      '$.releases[1].version: must be above the release before it (1.1.0)',
    ],
    [
      'a loose version',
      { releases: [{ version: 'v1', folder: 'a' }] },
      '$.releases[0].version: must be a strict semver',
    ],
    [
      'a lifetime out of range',
      { lifetimes: { authorization_code_s: 601 } },
      '$.lifetimes.authorization_code_s: must be an integer from 1 to 600',
    ],
    [
      'a freshness lifetime under a minute',
      { lifetimes: { freshness_s: 59 } },
      '$.lifetimes.freshness_s: must be an integer from 60',
    ],
    [
      'a freshness lifetime above 7 days (the TUF timestamp lifetime clients accept)',
      { lifetimes: { freshness_s: 604_801 } },
      '$.lifetimes.freshness_s: must be an integer from 60 to 604800',
    ],
    [
      'both node key forms',
      { node_key: { secret_key_hex: 'ab'.repeat(32), file: 'k.json' } },
      '$.node_key: give exactly one',
    ],
    [
      'a short node key',
      { node_key: { secret_key_hex: 'ab' } },
      '$.node_key.secret_key_hex: must be the 64-hex',
    ],
    [
      'a chain machine with a bad visibility',
      { chain: { machines: [{ id: 'm', name: 'n', visibility: 'hidden' }] } },
      '$.chain.machines[0].visibility: must be "public" or "private"',
    ],
    [
      'a login_page that is not boolean',
      { oauth: { login_page: 'no' } },
      '$.oauth.login_page: must be true or false',
    ],
  ])('refuses %s, naming the path', (_what, value, message) => {
    expect(refusal(value)).toContain(`qa.json: ${message}`);
  });
});

describe('the full example of docs/SERVER.md §Config file', () => {
  it('is a valid config', async () => {
    const doc = await readFile('docs/SERVER.md', 'utf8');
    const section = doc.slice(doc.indexOf('## Config file'));
    const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
    const config = validateConfig(JSON.parse(json), 'SERVER.md', '/qa');
    expect(config.machines).toHaveLength(3);
    expect(config.releases?.map((r) => r.folder)).toEqual([
      '/qa/fixtures/app-1.0.0',
      '/qa/fixtures/app-1.1.0',
    ]);
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'config-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('resolves paths against the file and checks release folders exist', async () => {
    const file = join(dir, 'qa.json');
    await writeFile(file, JSON.stringify({ releases: [{ version: '1.0.0', folder: 'missing' }] }));
    await expect(loadConfig(file)).rejects.toThrow(
      `${file}: $.releases[0].folder: ${join(dir, 'missing')} is not a directory`,
    );
  });

  it('refuses a file that is not JSON, or missing, with CONFIG_INVALID', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"oauth": ');
    await expect(loadConfig(file)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(loadConfig(join(dir, 'none.json'))).rejects.toThrow(/cannot read the config/);
  });

  it('refuses a node key file that does not exist (never a silent new key)', async () => {
    await expect(loadConfig({ node_key: { file: join(dir, 'nope.json') } })).rejects.toThrow(
      /\$\.node_key\.file: .* does not exist/,
    );
  });
});
