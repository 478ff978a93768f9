/** The web window's request checks (src/web/web-access.ts, docs/SECURITY.md §6). */
import { describe, expect, it } from 'vitest';
import {
  cookieName,
  isAllowedHost,
  isLoopback,
  isSameOrigin,
  parseHostHeader,
  readCookie,
  secretMatches,
  sessionCookie,
  urlHostOf,
} from '#web/web-access.js';

const LOOPBACK = { host: '127.0.0.1', port: 4000 };

describe('Host check (DNS rebinding)', () => {
  it('accepts the loopback names and addresses on our port', () => {
    for (const host of ['127.0.0.1:4000', 'localhost:4000', 'LOCALHOST:4000', '[::1]:4000']) {
      expect(isAllowedHost(host, LOOPBACK), host).toBe(true);
    }
  });

  it('with --listen 127.0.0.2, answers to its own printed address and the loopback names', () => {
    const other = { host: '127.0.0.2', port: 4000 };
    expect(isAllowedHost('127.0.0.2:4000', other)).toBe(true);
    expect(isAllowedHost('localhost:4000', other)).toBe(true);
    expect(isAllowedHost('127.0.0.3:4000', other)).toBe(false);
    expect(isAllowedHost('evil.example:4000', other)).toBe(false);
  });

  it('refuses a DNS name re-pointed at 127.0.0.1 (the rebinding attack)', () => {
    expect(isAllowedHost('evil.example:4000', LOOPBACK)).toBe(false);
    expect(isAllowedHost('127.0.0.1.nip.io:4000', LOOPBACK)).toBe(false);
  });

  it('refuses another port, no port, no header and malformed headers', () => {
    for (const host of ['127.0.0.1:4001', '127.0.0.1', '', 'localhost:0', 'a:b:4000', '[::1]']) {
      expect(isAllowedHost(host, LOOPBACK), host).toBe(false);
    }
    expect(isAllowedHost(undefined, LOOPBACK)).toBe(false);
  });

  it('with --listen ADDR, answers to that address only', () => {
    const lan = { host: '192.168.1.5', port: 80 };
    expect(isAllowedHost('192.168.1.5:80', lan)).toBe(true);
    expect(isAllowedHost('127.0.0.1:80', lan)).toBe(false);
    expect(isAllowedHost('printer.local:80', lan)).toBe(false);
    const v6 = { host: 'fd00::5', port: 80 };
    expect(isAllowedHost('[fd00::5]:80', v6)).toBe(true);
  });

  it('on every address (0.0.0.0, ::), answers to IP literals, never to a DNS name', () => {
    for (const any of ['0.0.0.0', '::']) {
      const listen = { host: any, port: 80 };
      expect(isAllowedHost('10.0.0.7:80', listen)).toBe(true);
      expect(isAllowedHost('[::1]:80', listen)).toBe(true);
      expect(isAllowedHost('evil.example:80', listen)).toBe(false);
    }
  });

  it('parses name:port and [v6]:port, nothing else', () => {
    expect(parseHostHeader('Example:8080')).toEqual({ name: 'example', port: 8080 });
    expect(parseHostHeader('[::1]:1')).toEqual({ name: '[::1]', port: 1 });
    expect(parseHostHeader('x:70000')).toBeNull();
    expect(parseHostHeader('x:')).toBeNull();
  });

  it('knows loopback and writes IPv6 in brackets', () => {
    expect(isLoopback('127.0.0.2')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('[::1]')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.5')).toBe(false);
    expect(urlHostOf('::1')).toBe('[::1]');
    expect(urlHostOf('127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('Origin check (cross-site requests)', () => {
  it('accepts exactly our own origin', () => {
    expect(isSameOrigin('http://127.0.0.1:4000', '127.0.0.1:4000')).toBe(true);
  });

  it('refuses a foreign origin, another port, https, "null" and a missing header', () => {
    for (const origin of [
      'http://evil.example',
      'http://127.0.0.1:4001',
      'https://127.0.0.1:4000',
      'null',
      undefined,
    ]) {
      expect(isSameOrigin(origin, '127.0.0.1:4000'), String(origin)).toBe(false);
    }
  });
});

describe('token and cookie', () => {
  it('compares secrets exactly', () => {
    expect(secretMatches('abc', 'abc')).toBe(true);
    expect(secretMatches('abd', 'abc')).toBe(false);
    expect(secretMatches('ab', 'abc')).toBe(false);
    expect(secretMatches(undefined, 'abc')).toBe(false);
  });

  it('reads one cookie among others', () => {
    expect(readCookie('a=1; updater-session-4000=tok; b=2', 'updater-session-4000')).toBe('tok');
    expect(readCookie('updater-session-4001=tok', 'updater-session-4000')).toBeUndefined();
    expect(readCookie(undefined, 'x')).toBeUndefined();
  });

  it('sets an HttpOnly, SameSite=Strict session cookie named after the port', () => {
    expect(cookieName(4000)).toBe('updater-session-4000');
    const cookie = sessionCookie(4000, 'tok');
    expect(cookie).toMatch(/^updater-session-4000=tok;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toMatch(/Max-Age|Expires|Domain/i);
  });
});
