/**
 * NO_PROXY / no_proxy matching (docs/UPDATER.md §7, Proxy): the hosts a run reaches directly
 * although a proxy is configured. A pure function of the variable's text and a URL's host and
 * port, as curl reads it: entries split on commas (and blanks), case-insensitive; a `*` entry
 * bypasses everything; `example.com` and `.example.com` match that host and every name under
 * it (never `notexample.com`); `host:port` only that port; an IP literal (`10.1.2.3`, `::1`,
 * `[::1]`) that address; `10.0.0.0/8` or `fd00::/8` a block of addresses. A name never matches
 * a host given as an address (curl's rule: `2.3` does not cover `10.1.2.3`).
 *
 * An entry it cannot read (`10.*`, Windows' `<local>`, `http://intranet`) is skipped and
 * reported by its position, never its text, as curl, Go and Python skip it: the variable is
 * often set for every program of a machine, and failing the run over it would stop updates on
 * a network that needs no proxy at all. Skipping errs towards the proxy.
 */
import { BlockList, isIP } from 'node:net';

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

/** An entry that cannot be read: skipped by parseNoProxy, with why. */
class Unreadable extends Error {}

function bad(why: string): never {
  throw new Unreadable(why);
}

/** Splits `host:port` (`[v6]:port` for IPv6); a bare IPv6 literal has no port. */
function hostAndPort(entry: string): { host: string; port: number | null } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) {
    return { host: bracketed[1] ?? '', port: portOf(bracketed[2]) };
  }
  const colons = entry.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port] = entry.split(':');
    return { host, port: portOf(port) };
  }
  return { host: entry, port: null };
}

function portOf(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 1 && port <= 65535)) bad('a port must be 1 to 65535');
  return port;
}

function addressRule(text: string): Rule | null {
  const [address = '', prefix, extra] = text.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const blocks = new BlockList();
  if (prefix === undefined) {
    blocks.addAddress(address, type);
  } else {
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) bad('a CIDR prefix is out of range');
    blocks.addSubnet(address, bits, type);
  }
  return { kind: 'address', blocks, port: null };
}

/** One entry, or Unreadable. */
function ruleOf(entry: string): Rule {
  // A CIDR block or a bare IPv6 literal has no port part.
  const block = entry.includes('/') || isIP(entry) === 6 ? addressRule(entry) : null;
  if (block !== null) return block;
  if (entry.includes('/')) bad('an entry with "/" must be an address block (10.0.0.0/8)');
  const { host, port } = hostAndPort(entry);
  const name = normalHost(host);
  const address = isIP(name) === 0 ? null : addressRule(name);
  if (address !== null) return { ...address, port };
  const suffix = name.replace(/^\*?\./, '');
  if (suffix === '' || !/^[a-z0-9_.-]+$/.test(suffix)) {
    bad('not a host name, a domain, an address or a block');
  }
  return { kind: 'name', suffix, port };
}

/**
 * Parses the variable's value; each entry it cannot read is skipped and told to `skipped`
 * (`variable` and the entry's 1-based position, never its text).
 */
export function parseNoProxy(
  value: string,
  variable: string,
  skipped: (message: string) => void = () => undefined,
): NoProxy {
  const entries = value
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.includes('*')) return 'all';
  const rules: Rule[] = [];
  entries.forEach((entry, index) => {
    try {
      rules.push(ruleOf(entry));
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      skipped(
        `${variable}: entry ${index + 1} is skipped (${error.message}); ` +
          'the hosts it was meant for go through the proxy',
      );
    }
  });
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
    return family === 0 && (name === rule.suffix || name.endsWith(`.${rule.suffix}`));
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
  // ::1, and 127.0.0.0/8 mapped into IPv6 (the URL parser writes ::ffff:127.0.0.1 that way).
  return name === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(name);
}
