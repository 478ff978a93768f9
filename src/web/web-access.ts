/**
 * Who may talk to the web window (docs/SECURITY.md §Web window): pure checks of one HTTP
 * request's Host, Origin, token and cookie, with no I/O, so each refusal has its own test.
 *
 * - Host must name the address the server listens on (DNS rebinding: a page on evil.example
 *   re-pointed at 127.0.0.1 still sends `Host: evil.example`).
 * - A state-changing call (POST) must carry an Origin equal to our own.
 * - Access needs the random token: once in the address (`?token=`), then as an HttpOnly,
 *   SameSite=Strict cookie.
 */
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The names a loopback listener answers to (the port must match too). */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ListenAddress {
  /** The address given to listen(), e.g. 127.0.0.1, ::1, 0.0.0.0, 192.168.1.5. */
  readonly host: string;
  readonly port: number;
}

/** True for 127.0.0.0/8, ::1 and the name localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** How a listen address is written in a URL's host (IPv6 in brackets). */
export function urlHostOf(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** Splits a Host header into name and port; null when it is not `name:port` or `[v6]:port`. */
export function parseHostHeader(value: string): { name: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(value);
  if (match === null) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  return { name: (match[1] ?? '').toLowerCase(), port };
}

/**
 * Whether a Host header names this server. Loopback listeners answer to the loopback names;
 * a listener on one address to that address; one on every address (0.0.0.0, ::) to any IP
 * literal, never to a DNS name (a name is what a rebinding attack controls).
 */
export function isAllowedHost(value: string | undefined, listen: ListenAddress): boolean {
  if (value === undefined) return false;
  const parsed = parseHostHeader(value);
  if (parsed === null || parsed.port !== listen.port) return false;
  // A loopback listener answers to the loopback names and to its own address (127.0.0.2 is
  // what `serve --listen 127.0.0.2` prints; docs/SECURITY.md §6).
  if (isLoopback(listen.host)) {
    return LOOPBACK_NAMES.has(parsed.name) || parsed.name === urlHostOf(listen.host).toLowerCase();
  }
  if (listen.host === '0.0.0.0' || listen.host === '::') {
    const bare = parsed.name.replace(/^\[|\]$/g, '');
    return isIP(bare) !== 0;
  }
  return parsed.name === urlHostOf(listen.host).toLowerCase();
}

/** Whether an Origin header is exactly this server's own origin (http://<Host>). */
export function isSameOrigin(origin: string | undefined, host: string): boolean {
  return origin !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`;
}

/** Constant-time comparison of a presented secret with the real one. */
export function secretMatches(presented: string | undefined, secret: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(secret, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Reads one cookie from a Cookie header (no decoding: our values are base64url). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The session cookie's name. Cookies are not isolated by port (RFC 6265 §8.5), so two
 * servers on one host would overwrite each other's cookie under one name: the port is in it.
 */
export function cookieName(port: number): string {
  return `updater-session-${port}`;
}

/** The Set-Cookie value: HttpOnly (no script reads it), SameSite=Strict, whole site, session. */
export function sessionCookie(port: number, value: string): string {
  return `${cookieName(port)}=${value}; HttpOnly; SameSite=Strict; Path=/`;
}
