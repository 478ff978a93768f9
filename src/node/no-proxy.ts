/**
 * NO_PROXY / no_proxy matching (docs/UPDATER.md §7, Proxy): the hosts a run reaches directly
 * although a proxy is configured. A pure function of the variable's text and a URL's host and
 * port, as curl reads it: entries split on commas (and blanks), case-insensitive; `*` alone
 * bypasses everything; `example.com` and `.example.com` match that host and every name under
 * it (never `notexample.com`); `host:port` only that port; an IP literal (`10.1.2.3`, `::1`,
 * `[::1]`) that address; `10.0.0.0/8` or `fd00::/8` a block of addresses.
 */
import { BlockList, isIP } from 'node:net';
import { UpdateError } from '../core/errors.js';

/** One NO_PROXY entry, parsed. */
type Rule =
  | { readonly kind: 'name'; readonly suffix: string; readonly port: number | null }
  | { readonly kind: 'address'; readonly blocks: BlockList; readonly port: number | null };

export type NoProxy = 'all' | readonly Rule[];

/** Lower case, without the brackets of an IPv6 literal or a trailing root dot. */
export function normalHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

function bad(variable: string, why: string): never {
  // The entry is named by position, not echoed: a variable may be pasted with secrets nearby.
  throw new UpdateError('CONFIG_INVALID', `${variable}: ${why}`);
}

/** Splits `host:port` (`[v6]:port` for IPv6); a bare IPv6 literal has no port. */
function hostAndPort(entry: string, variable: string): { host: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) {
    return { host: bracketed[1] ?? '', port: portOf(bracketed[2], variable) };
  }
  const colons = entry.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port] = entry.split(':');
    return { host, port: portOf(port, variable) };
  }
  return { host: entry, port: null };
}

function portOf(raw: string | undefined, variable: string): number | null {
  if (raw === undefined) return null;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 1 && port <= 65535)) bad(variable, 'a port must be 1 to 65535');
  return port;
}

function addressRule(text: string, variable: string): Rule | null {
  const [address = '', prefix, extra] = text.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const blocks = new BlockList();
  if (prefix === undefined) {
    blocks.addAddress(address, type);
  } else {
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128)))
      bad(variable, 'a CIDR prefix is out of range');
    blocks.addSubnet(address, bits, type);
  }
  return { kind: 'address', blocks, port: null };
}

/** Parses the variable's value; `variable` names it in an error. */
export function parseNoProxy(value: string, variable: string): NoProxy {
  const entries = value
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.includes('*')) return 'all';
  const rules: Rule[] = [];
  for (const entry of entries) {
    // A CIDR block or a bare IPv6 literal has no port part.
    const block = entry.includes('/') || isIP(entry) === 6 ? addressRule(entry, variable) : null;
    if (block !== null) {
      rules.push(block);
      continue;
    }
    if (entry.includes('/'))
      bad(variable, 'an entry with "/" must be an address block (10.0.0.0/8)');
    const { host, port } = hostAndPort(entry, variable);
    const name = normalHost(host);
    const address = isIP(name) === 0 ? null : addressRule(name, variable);
    if (address !== null) {
      rules.push({ ...address, port });
      continue;
    }
    const suffix = name.replace(/^\*?\./, '');
    if (suffix === '' || !/^[a-z0-9_.-]+$/.test(suffix)) {
      bad(variable, 'an entry must be a host name, a domain, an address or a block');
    }
    rules.push({ kind: 'name', suffix, port });
  }
  return rules;
}

/** True when a request to `host:port` (a URL's host, any case, IPv6 bracketed or not) skips the proxy. */
export function bypasses(noProxy: NoProxy, host: string, port: number): boolean {
  if (noProxy === 'all') return true;
  const name = normalHost(host);
  const family = isIP(name);
  return noProxy.some((rule) => {
    if (rule.port !== null && rule.port !== port) return false;
    if (rule.kind === 'address') {
      return family !== 0 && rule.blocks.check(name, family === 4 ? 'ipv4' : 'ipv6');
    }
    return name === rule.suffix || name.endsWith(`.${rule.suffix}`);
  });
}

/**
 * Loopback is always reached directly (as Go's net/http does): no proxy can reach this
 * machine's loopback for us, and `updater serve`'s embedded demo registry listens there.
 */
export function isLoopbackHost(host: string): boolean {
  const name = normalHost(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1';
}
