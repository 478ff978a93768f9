/**
 * Helpers for a browser login against the companion server, shared by the Playwright entry
 * (docs/SERVER.md §As a package, docs/OAUTH.md §Login page). `authorizeUrl` builds the
 * authorization request of the default confidential client `qa-web`; the redirect it ends with
 * goes to a URI nothing listens on, which `redirectCapture` (playwright.ts) answers in the page.
 */
import type { RunningServer } from '../../../server/src/compose/start-server.js';

/** The redirect URI registered for the default client `qa-web` (docs/OAUTH.md). */
export const QA_REDIRECT_URI = 'http://localhost:3000/callback';

/** What `authorizeUrl` may be told; anything else goes into the query as given. */
export interface AuthorizeUrlOptions {
  /** Default `qa-web`, the confidential client every server starts with. */
  readonly clientId?: string;
  /** Default QA_REDIRECT_URI. */
  readonly redirectUri?: string;
  /** Default `openid`. */
  readonly scope?: string;
  /** Default `qa-state`; the redirect carries it back. */
  readonly state?: string;
  /** Skips the login page and signs in as this subject. */
  readonly loginHint?: string;
  /** More query parameters (`nonce`, `code_challenge`, ...). */
  readonly extra?: Readonly<Record<string, string>>;
}

/**
 * The URL of an authorization request (RFC 6749 §4.1.1) to `server`: without `loginHint` it
 * shows the login page.
 * @example await page.goto(authorizeUrl(server, { state: 's1' }));
 */
export function authorizeUrl(
  server: Pick<RunningServer, 'url'>,
  options: AuthorizeUrlOptions = {},
): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId ?? 'qa-web',
    redirect_uri: options.redirectUri ?? QA_REDIRECT_URI,
    scope: options.scope ?? 'openid',
    state: options.state ?? 'qa-state',
    ...(options.loginHint === undefined ? {} : { login_hint: options.loginHint }),
    ...options.extra,
  });
  return `${server.url}/api/oauth/authorize?${query.toString()}`;
}

/**
 * Redeems an authorization code of `qa-web` (or a client given with its secret) for tokens
 * (RFC 6749 §4.1.3) and returns the token response.
 * @example const { access_token } = await redeemCode(server, back.searchParams.get('code'));
 */
export async function redeemCode(
  server: Pick<RunningServer, 'url' | 'oauth'>,
  code: string | null,
  client: { readonly id: string; readonly secret: string } = {
    id: 'qa-web',
    secret: server.oauth.qaClientSecret,
  },
  redirectUri: string = QA_REDIRECT_URI,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}/api/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: redirectUri,
    }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) {
    throw new Error(`token request failed with ${res.status}: ${JSON.stringify(body)}`);
  }
  return body;
}
