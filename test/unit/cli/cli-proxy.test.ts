/** The CLI's proxy from the environment (src/cli/cli-proxy.ts, docs/UPDATER.md §7, Proxy). */
import { describe, expect, it } from 'vitest';
import { openCliProxy } from '#cli/cli-proxy.js';

describe('cli proxy', () => {
  it('no proxy variable: no fetch (the node:http fetcher stays), nothing said', async () => {
    const said: string[] = [];
    expect(await openCliProxy({ NO_PROXY: '*' }, 'https://r.test', (m) => said.push(m))).toBe(
      undefined,
    );
    expect(said).toEqual([]);
  });

  it('a proxy variable: a fetch to close', async () => {
    const proxy = await openCliProxy(
      { https_proxy: 'http://p.test:3128' },
      'https://r.test',
      () => {
        throw new Error('nothing to say');
      },
    );
    expect(typeof proxy?.fetch).toBe('function');
    await proxy?.close();
  });

  it('warns of an ignored HTTP_PROXY only for an http registry', async () => {
    const said: string[] = [];
    const env = { HTTP_PROXY: 'http://p.test:1', HTTPS_PROXY: 'http://p.test:2' };
    await (await openCliProxy(env, 'https://r.test', (m) => said.push(m)))?.close();
    expect(said).toEqual([]);
    await (await openCliProxy(env, 'http://r.test', (m) => said.push(m)))?.close();
    expect(said).toEqual([
      'HTTP_PROXY is ignored, as curl ignores it (httpoxy): http URLs use http_proxy',
    ]);
  });

  it('a malformed variable rejects with CONFIG_INVALID', async () => {
    await expect(
      openCliProxy({ https_proxy: 'ftp://p' }, '', () => undefined),
    ).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('says what it skipped (a SOCKS ALL_PROXY, an unreadable NO_PROXY entry), never a value', async () => {
    const warnings: string[] = [];
    const proxy = await openCliProxy({ ALL_PROXY: 'socks5://u:pw@p:1080' }, '', (m) =>
      warnings.push(m),
    );
    expect(proxy).toBeUndefined();
    expect(warnings).toEqual([
      'ALL_PROXY names a proxy of another kind than http or https: not used',
    ]);
    expect(warnings.join()).not.toContain('pw');
  });
});
