/**
 * A server built from a config (docs/SERVER.md §Config file): fixed machine keys with their
 * subscriptions, releases from folders, chain machines, a fixed node key, lifetimes, explicit
 * options over the config, and a reset that returns to the configured state.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '#server/compose/app.js';
import { defaultMachineId } from '#server/config/apply-config.js';
import type { ServerConfig } from '#server/config/server-config.js';
import { pubkeyToHex, publicKeyOf } from '#protocol';

const ACTIVE = `mk_${'A'.repeat(43)}`;
const INACTIVE = `mk_${'B'.repeat(43)}`;
const SEED_HEX = '11'.repeat(32);

let dir: string;
let built: BuiltApp | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'apply-config-'));
  await mkdir(join(dir, 'v1', 'app'), { recursive: true });
  await writeFile(join(dir, 'v1', 'app', 'hello.txt'), 'hello\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await built?.app.close();
  built = undefined;
});

const CONFIG: ServerConfig = {
  node_key: { secret_key_hex: SEED_HEX },
  lifetimes: { access_token_s: 120, freshness_s: 600 },
  machines: [
    { machine_key: ACTIVE, machine_id: 'm_qa', label: 'QA box' },
    { machine_key: INACTIVE, subscription: 'inactive' },
  ],
  chain: {
    machines: [
      { id: 'rig-1', name: 'Rig one', visibility: 'public' },
      { id: 'rig-2', name: 'Rig two', visibility: 'private' },
    ],
  },
};

async function build(config: ServerConfig, options: Record<string, unknown> = {}) {
  built = await buildApp({ logLevel: 'silent', simulate: false, dev: true, config, ...options });
  return built;
}

const manifest = (key: string) =>
  built?.app.inject({
    method: 'GET',
    url: '/api/updates/manifest',
    headers: { authorization: `Bearer ${key}` },
  });

describe('a config in effect', () => {
  it('pins the node key given by its secret', async () => {
    const b = await build(CONFIG);
    const expected = pubkeyToHex(publicKeyOf(new Uint8Array(Buffer.from(SEED_HEX, 'hex'))));
    expect(b.modules.updates.api.nodePubkey).toBe(expected);
  });

  it('fixed machine keys work as given, with their subscription state', async () => {
    await build(CONFIG);
    expect((await manifest(ACTIVE))?.statusCode).toBe(200);
    const refused = await manifest(INACTIVE);
    expect(refused?.statusCode).toBe(401);
    expect(refused?.json()).toMatchObject({ code: 'SUBSCRIPTION_INACTIVE' });
    expect(defaultMachineId(INACTIVE)).toMatch(/^m_[A-Za-z0-9_-]{16}$/);
  });

  it('publishes releases from folders, in order', async () => {
    const b = await build({ ...CONFIG, releases: [{ version: '1.0.0', folder: join(dir, 'v1') }] });
    const current = b.modules.updates.api.currentRelease();
    expect(current?.manifest.registry_version).toBe('1.0.0');
    expect(current?.manifest.artifacts.map((a) => a.name)).toEqual(['app/hello.txt']);
  });

  it('adds chain machines with their visibility', async () => {
    const b = await build(CONFIG);
    const unit = b.modules.chain.api.unitNow() - 1;
    b.modules.chain.api.addTransitions({ machine_id: 'rig-1', count: 3, unit });
    b.modules.chain.api.addTransitions({ machine_id: 'rig-2', count: 9, unit });
    // A private machine never appears in the ranking (docs/CHAIN.md).
    expect(b.modules.chain.api.ranking(1, 10).machines).toEqual([
      { rank: 1, id: 'rig-1', name: 'Rig one', transitions: 3 },
    ]);
  });

  it('sets the token and freshness lifetimes; an explicit option wins over the config', async () => {
    const b = await build(CONFIG);
    expect(b.modules.oauth.api.state.limits.accessTokenTtlSec).toBe(120);
    expect(b.ctx.options.freshnessLifetimeS).toBe(600);
    await b.app.close();
    const explicit = await build(CONFIG, { freshnessLifetimeS: 900 });
    expect(explicit.ctx.options.freshnessLifetimeS).toBe(900);
  });

  it('a reset returns to the configured state', async () => {
    const b = await build({ ...CONFIG, releases: [{ version: '1.0.0', folder: join(dir, 'v1') }] });
    await b.reset();
    expect((await manifest(ACTIVE))?.statusCode).toBe(200);
    expect(b.modules.updates.api.currentRelease()?.manifest.registry_version).toBe('1.0.0');
  });

  it('refuses a data directory that holds another node key', async () => {
    const data = join(dir, 'data');
    await (await build({}, { dataDir: data })).app.close();
    built = undefined;
    await expect(build(CONFIG, { dataDir: data })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('$.node_key.secret_key_hex') as unknown,
    });
  });

  it('refuses claims for a client that is not registered', async () => {
    await expect(build({ oauth: { claims: { clients: { nobody: { a: 1 } } } } })).rejects.toThrow(
      'config: $.oauth.claims.clients["nobody"]: no client nobody is registered',
    );
  });
});
