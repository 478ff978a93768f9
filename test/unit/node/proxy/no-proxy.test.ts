/** NO_PROXY matching (src/node/proxy/no-proxy.ts, docs/UPDATER.md §7, Proxy). */
import { describe, expect, it } from 'vitest';
import { bypasses, isLoopbackHost, parseNoProxy } from '#node/proxy/no-proxy.js';

describe('no-proxy', () => {
  it('parses * as everything', () => {
    expect(parseNoProxy('a.test, *', 'NO_PROXY')).toBe('all');
    expect(bypasses('all', 'x.test', 443)).toBe(true);
  });

  it('an empty value bypasses nothing', () => {
    expect(bypasses(parseNoProxy(' , ', 'NO_PROXY'), 'x.test', 80)).toBe(false);
  });

  it('matches names case-insensitively, with or without a trailing root dot', () => {
    const rules = parseNoProxy('Corp.Example.', 'no_proxy');
    expect(bypasses(rules, 'corp.example', 80)).toBe(true);
    expect(bypasses(rules, 'A.CORP.EXAMPLE.', 80)).toBe(true);
    expect(bypasses(rules, 'xcorp.example', 80)).toBe(false);
  });

  it('a bracketed IPv6 entry with a port', () => {
    const rules = parseNoProxy('[fd00::1]:8443', 'NO_PROXY');
    expect(bypasses(rules, '[fd00::1]', 8443)).toBe(true);
    expect(bypasses(rules, 'fd00::1', 443)).toBe(false);
  });

  it('an address rule never matches a name', () => {
    expect(bypasses(parseNoProxy('10.0.0.0/8', 'NO_PROXY'), '10.example', 80)).toBe(false);
  });

  it('knows loopback', () => {
    expect(isLoopbackHost('127.9.9.9')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.example')).toBe(false);
  });
});
