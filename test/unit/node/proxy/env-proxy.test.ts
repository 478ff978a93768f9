/**
 * The proxy decision of a CLI run (src/node/proxy/env-proxy.ts, docs/UPDATER.md §7, Proxy): the
 * environment in, the proxy of each URL out, with curl's precedence and the httpoxy rule.
 */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import {
  parseProxyUrl,
  proxyFor,
  proxySettings,
  usesProxy,
  type ProxyEnvironment,
} from '#node/proxy/env-proxy.js';
import { refusalOf, type Refusal } from '#test/expect-code.js';
const refusal = (run: () => unknown): Refusal => refusalOf(run, UpdateError);

function via(env: ProxyEnvironment, url: string): string | null {
  const settings = proxySettings(env);
  if (settings === null) return null;
  return proxyFor(settings, url)?.origin ?? null;
}

describe('env proxy: which variable applies', () => {
  it('no proxy variable: no settings at all (nothing changes)', () => {
    expect(proxySettings({})).toBeNull();
    expect(proxySettings({ NO_PROXY: 'example.com', PATH: '/bin' })).toBeNull();
    expect(proxySettings({ https_proxy: '', http_proxy: '  ' })).toBeNull();
    expect(usesProxy(proxySettings({}))).toBe(false);
  });

  it('https URLs use https_proxy before HTTPS_PROXY', () => {
    expect(via({ HTTPS_PROXY: 'http://up:1' }, 'https://r.test/m')).toBe('http://up:1');
    expect(
      via({ https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:1' }, 'https://r.test/'),
    ).toBe('http://low:1');
  });

  it('http URLs use http_proxy only: HTTP_PROXY is ignored and reported (httpoxy)', () => {
    expect(via({ http_proxy: 'http://low:1' }, 'http://r.test/')).toBe('http://low:1');
    const settings = proxySettings({ HTTP_PROXY: 'http://evil:1' });
    expect(settings?.ignored).toEqual(['HTTP_PROXY']);
    expect(usesProxy(settings)).toBe(false);
    expect(via({ HTTP_PROXY: 'http://evil:1', http_proxy: 'http://low:1' }, 'http://r.test/')).toBe(
      'http://low:1',
    );
    expect(proxySettings({ HTTP_PROXY: 'x', http_proxy: 'http://low:1' })?.ignored).toEqual([]);
  });

  it('a scheme without its own variable falls back to all_proxy, then ALL_PROXY', () => {
    expect(via({ ALL_PROXY: 'http://all:1' }, 'http://r.test/')).toBe('http://all:1');
    expect(via({ ALL_PROXY: 'http://all:1' }, 'https://r.test/')).toBe('http://all:1');
    expect(via({ all_proxy: 'http://a:1', ALL_PROXY: 'http://b:1' }, 'https://r.test/')).toBe(
      'http://a:1',
    );
    expect(via({ all_proxy: 'http://a:1', https_proxy: 'http://s:1' }, 'https://r.test/')).toBe(
      'http://s:1',
    );
  });

  it('a proxy for one scheme leaves the other direct', () => {
    expect(via({ https_proxy: 'http://s:1' }, 'http://r.test/')).toBeNull();
    expect(via({ http_proxy: 'http://h:1' }, 'https://r.test/')).toBeNull();
  });

  it('loopback is always direct', () => {
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/',
      'http://[::1]:1/',
      'http://a.localhost/',
    ]) {
      expect(via({ http_proxy: 'http://h:1' }, url)).toBeNull();
    }
  });
});

describe('env proxy: NO_PROXY', () => {
  const env = (noProxy: string): ProxyEnvironment => ({
    https_proxy: 'http://p:1',
    NO_PROXY: noProxy,
  });

  it('a host or domain matches itself and its subdomains, never a longer name', () => {
    expect(via(env('example.com'), 'https://example.com/')).toBeNull();
    expect(via(env('example.com'), 'https://cdn.Example.COM/')).toBeNull();
    expect(via(env('example.com'), 'https://notexample.com/')).toBe('http://p:1');
    expect(via(env('.example.com'), 'https://example.com/')).toBeNull();
    expect(via(env('.example.com'), 'https://a.b.example.com/')).toBeNull();
    expect(via(env('*.example.com'), 'https://a.example.com/')).toBeNull();
  });

  it('several entries, commas and blanks', () => {
    const e = env(' a.test , b.test  c.test,');
    expect(via(e, 'https://b.test/')).toBeNull();
    expect(via(e, 'https://c.test/')).toBeNull();
    expect(via(e, 'https://d.test/')).toBe('http://p:1');
  });

  it('host:port matches only that port (the default port counts)', () => {
    expect(via(env('r.test:8443'), 'https://r.test:8443/')).toBeNull();
    expect(via(env('r.test:8443'), 'https://r.test/')).toBe('http://p:1');
    expect(via(env('r.test:443'), 'https://r.test/')).toBeNull();
  });

  it('IP literals and blocks, v4 and v6', () => {
    expect(via(env('10.1.2.3'), 'https://10.1.2.3/')).toBeNull();
    expect(via(env('10.1.2.3'), 'https://10.1.2.4/')).toBe('http://p:1');
    expect(via(env('10.0.0.0/8'), 'https://10.200.0.1/')).toBeNull();
    expect(via(env('10.0.0.0/8'), 'https://11.0.0.1/')).toBe('http://p:1');
    expect(via(env('fd00::/8'), 'https://[fd12::1]/')).toBeNull();
    expect(via(env('[fd00::5]'), 'https://[fd00::5]/')).toBeNull();
    expect(via(env('fd00::5'), 'https://[fd00::6]/')).toBe('http://p:1');
    expect(via(env('10.1.2.3:8443'), 'https://10.1.2.3/')).toBe('http://p:1');
  });

  it('* alone bypasses everything; no_proxy wins over NO_PROXY', () => {
    expect(via(env('*'), 'https://anything.test/')).toBeNull();
    expect(
      via({ https_proxy: 'http://p:1', no_proxy: 'a.test', NO_PROXY: '*' }, 'https://b.test/'),
    ).toBe('http://p:1');
  });

  it('an entry it cannot read is skipped, said by position, and the rest still apply', () => {
    for (const bad of ['10.0.0.0/99', 'a.test:0', 'a/b', '10.*', '<local>', 'http://intra']) {
      const settings = proxySettings(env(`${bad},skip.test`));
      expect(settings?.warnings).toHaveLength(1);
      expect(settings?.warnings[0]).toMatch(
        /^NO_PROXY: entry 1 is skipped \(.+\); the hosts it was meant for go through the proxy$/,
      );
      expect(settings?.warnings[0]).not.toContain(bad);
      expect(via(env(`${bad},skip.test`), 'https://skip.test/')).toBeNull();
      expect(via(env(`${bad},skip.test`), 'https://other.test/')).toBe('http://p:1');
    }
  });

  it('a name never matches a host given as an address; IPv4-mapped loopback is direct', () => {
    expect(via(env('2.3'), 'https://10.1.2.3/')).toBe('http://p:1');
    expect(via(env('10.1.2.3'), 'https://10.1.2.3/')).toBeNull();
    expect(via(env('x.test'), 'https://[::ffff:127.0.0.1]/')).toBeNull();
    expect(via(env('x.test'), 'https://[::ffff:10.0.0.1]/')).toBe('http://p:1');
  });

  it('a * entry bypasses everything, alone or in a list', () => {
    expect(via(env('a.test,*'), 'https://b.test/')).toBeNull();
  });
});

describe('env proxy: the proxy URL', () => {
  it('splits Basic credentials out of the user-info, percent-decoded', () => {
    const server = parseProxyUrl('HTTPS_PROXY', 'http://al%40ce:p%3Ass@proxy.corp:3128/');
    expect(server).toEqual({
      origin: 'http://proxy.corp:3128',
      variable: 'HTTPS_PROXY',
      authorization: `Basic ${Buffer.from('al@ce:p:ss').toString('base64')}`,
    });
    expect(parseProxyUrl('X', 'http://user@p:1').authorization).toBe(
      `Basic ${Buffer.from('user:').toString('base64')}`,
    );
    expect(parseProxyUrl('X', 'http://p:1').authorization).toBeUndefined();
  });

  it('a value without a scheme is http; https proxies and IPv6 hosts are kept', () => {
    expect(parseProxyUrl('X', 'proxy.corp:3128').origin).toBe('http://proxy.corp:3128');
    expect(parseProxyUrl('X', 'HTTPS://P.corp').origin).toBe('https://p.corp');
    expect(parseProxyUrl('X', 'http://[fd00::1]:8080').origin).toBe('http://[fd00::1]:8080');
  });

  it('malformed values are CONFIG_INVALID naming the variable, never echoing the value', () => {
    const secret = 's3cr3t-pw';
    for (const value of [
      `socks5://u:${secret}@p:1080`,
      `http://u:${secret}@p:1/path`,
      `http://u:${secret}@p:99999`,
      `http://u:${secret}@p:1/?q`,
      `http://u:${secret}%zz@p:1`,
      'http://',
    ]) {
      const { code, message } = refusal(() => proxySettings({ https_proxy: value }));
      expect(code).toBe('CONFIG_INVALID');
      expect(message).toContain('https_proxy');
      expect(message).not.toContain(secret);
    }
  });
});
