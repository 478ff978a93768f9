/**
 * The OAuth client registry: the public `desktop-app` (loopback redirects on any port, RFC 8252
 * §7.3), the confidential `qa-web`, and more from a JSON file. Registration is strict and fails
 * closed: a malformed entry or a secret under 32 bytes (RFC 7518 §3.2, docs/OAUTH.md §The rules, I-08) is refused.
 */
import { readRegularFile } from '../platform/regular-file.js';
import { errorClass } from '../server-error.js';

/** One registered client. `secret` undefined means public (token_endpoint_auth_method none). */
export interface OAuthClient {
  readonly id: string;
  readonly secret: string | undefined;
  /** Exact redirect URIs (RFC 9700 §4.1.3: exact string match). */
  readonly redirectUris: readonly string[];
  /** RFC 8252 §7.3: any port on http://127.0.0.1 with one of these paths. */
  readonly loopbackPaths: readonly string[];
  readonly scopes: readonly string[];
  /** RFC 6749 §4.1.3 requires redirect_uri at the token endpoint; OAuth 2.1 clients omit it. */
  readonly requireRedirectUriAtToken: boolean;
  /** OIDC RP-Initiated Logout §3.1: where the end-session endpoint may send the browser back. */
  readonly postLogoutRedirectUris: readonly string[];
}

/** What a caller gives to register a client (in-process API, dev API, clients file). */
export interface ClientRegistration {
  readonly client_id: string;
  readonly client_secret?: string | undefined;
  readonly redirect_uris?: readonly string[] | undefined;
  readonly loopback_redirect_paths?: readonly string[] | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly require_redirect_uri_at_token?: boolean | undefined;
  readonly post_logout_redirect_uris?: readonly string[] | undefined;
}

/** The fields a registration may have (a config file refuses any other). */
export const REGISTRATION_FIELDS: readonly (keyof ClientRegistration)[] = [
  'client_id',
  'client_secret',
  'redirect_uris',
  'loopback_redirect_paths',
  'scopes',
  'require_redirect_uri_at_token',
  'post_logout_redirect_uris',
];

/** A registration (or clients file) that is refused; at start-up the server does not start. */
export const ClientRegistrationError = errorClass(
  'ClientRegistrationError',
  'CLIENT_REGISTRATION_INVALID',
);
export type ClientRegistrationError = InstanceType<typeof ClientRegistrationError>;

/** Scopes every default client may request. */
export const DEFAULT_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'offline_access'];
export const MIN_SECRET_BYTES = 32;
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/; // RFC 6749 A.1: VSCHAR; we also forbid space.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/; // RFC 6749 §3.3 NQCHAR

/** Validates a registration and returns the client (throws ClientRegistrationError). */
export function toClient(reg: ClientRegistration): OAuthClient {
  const fail = (msg: string): never => {
    throw new ClientRegistrationError(`client ${String(reg.client_id)}: ${msg}`);
  };
  if (typeof reg.client_id !== 'string' || !CLIENT_ID.test(reg.client_id)) {
    fail('client_id must be 1-128 visible ASCII characters');
  }
  const secret = reg.client_secret;
  if (secret !== undefined) {
    if (typeof secret !== 'string') fail('client_secret must be a string');
    if (Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) {
      fail(`client_secret must be at least ${MIN_SECRET_BYTES} bytes (HS256 key, RFC 7518 §3.2)`);
    }
  }
  const redirectUris = stringList(reg.redirect_uris ?? [], 'redirect_uris', fail);
  for (const uri of redirectUris) {
    if (!URL.canParse(uri) || new URL(uri).hash !== '') {
      fail(`redirect URI ${uri} must be absolute without a fragment (RFC 6749 §3.1.2)`);
    }
  }
  const loopbackPaths = stringList(reg.loopback_redirect_paths ?? [], 'loopback paths', fail);
  for (const p of loopbackPaths) if (!p.startsWith('/')) fail('loopback paths start with /');
  if (redirectUris.length + loopbackPaths.length === 0) fail('no redirect URI registered');
  const scopes = stringList(reg.scopes ?? DEFAULT_SCOPES, 'scopes', fail);
  for (const s of scopes) if (!SCOPE_TOKEN.test(s)) fail(`scope ${s} is not a valid scope token`);
  const requireRedirect = reg.require_redirect_uri_at_token ?? true;
  if (typeof requireRedirect !== 'boolean') fail('require_redirect_uri_at_token is boolean');
  const logoutUris = stringList(
    reg.post_logout_redirect_uris ?? [],
    'post_logout_redirect_uris',
    fail,
  );
  for (const uri of logoutUris) {
    if (!URL.canParse(uri) || new URL(uri).hash !== '') {
      fail(`post-logout redirect URI ${uri} must be absolute without a fragment`);
    }
  }
  return {
    id: reg.client_id,
    secret,
    redirectUris,
    loopbackPaths,
    scopes,
    requireRedirectUriAtToken: requireRedirect,
    postLogoutRedirectUris: logoutUris,
  };
}

function stringList(value: unknown, what: string, fail: (m: string) => never): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    fail(`${what} must be an array of strings`);
  }
  return [...(value as string[])];
}

/**
 * True when `uri` is registered for the client: an exact match, or for loopback paths
 * `http://127.0.0.1:<port><path>` with any port (RFC 8252 §7.3), no query, no fragment.
 */
export function isRegisteredRedirect(client: OAuthClient, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  if (client.loopbackPaths.length === 0) return false;
  const m = LOOPBACK.exec(uri);
  if (m === null) return false;
  const port = Number(m[1]);
  return port >= 1 && port <= 65535 && client.loopbackPaths.includes(m[2] ?? '');
}

const LOOPBACK = /^http:\/\/127\.0\.0\.1:([0-9]{1,5})(\/[^?#]*)$/;

/**
 * The one spelling of a redirect URI that a code is bound to and the token endpoint compares
 * against (docs/PROTOCOL.md §4.4): a loopback URI's port as a URL parser writes it (`05000` is
 * `5000`, as WHATWG URL and every client library spell it); any other URI exactly as given.
 */
export function canonicalRedirect(uri: string): string {
  const m = LOOPBACK.exec(uri);
  return m === null ? uri : `http://127.0.0.1:${Number(m[1])}${m[2] ?? ''}`;
}

/** Bound on registered clients (the dev API can add them at runtime). */
export const MAX_CLIENTS = 1000;

/** The mutable registry: default clients plus registrations. */
export class ClientRegistry {
  readonly #clients = new Map<string, OAuthClient>();

  get(id: string): OAuthClient | undefined {
    return this.#clients.get(id);
  }

  /** Adds or replaces a client after validation. */
  register(reg: ClientRegistration): OAuthClient {
    const client = toClient(reg);
    if (!this.#clients.has(client.id) && this.#clients.size >= MAX_CLIENTS) {
      throw new ClientRegistrationError(`at most ${MAX_CLIENTS} clients can be registered`);
    }
    this.#clients.set(client.id, client);
    return client;
  }

  list(): OAuthClient[] {
    return [...this.#clients.values()];
  }
}

/** The default clients of the issue: public `desktop-app` and confidential `qa-web`. */
export function defaultRegistrations(qaSecret: string): ClientRegistration[] {
  return [
    { client_id: 'desktop-app', loopback_redirect_paths: ['/callback'] },
    {
      client_id: 'qa-web',
      client_secret: qaSecret,
      redirect_uris: ['http://localhost:3000/callback'],
    },
  ];
}

/**
 * Reads a clients file: `{"clients": [ClientRegistration, ...]}`. Any error refuses to start
 * (fail closed) rather than running with a partial registry.
 */
export async function readClientsFile(path: string): Promise<ClientRegistration[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readRegularFile(path));
  } catch (cause) {
    throw new ClientRegistrationError(`clients file ${path} is unreadable or not JSON`, { cause });
  }
  const list = (parsed as { clients?: unknown } | null)?.clients;
  if (!Array.isArray(list) || list.some((c) => typeof c !== 'object' || c === null)) {
    throw new ClientRegistrationError(`clients file ${path} must be {"clients": [...]}`);
  }
  return list as ClientRegistration[];
}
