/**
 * Extra ID-token claims for QA (docs/OAUTH.md §Claims): per client and per subject from the
 * config (`oauth.claims`), per authorization from the login page or a minted code, and shaped
 * last by the in-process hook `startServer({ onIssueTokens })`. The result goes into every ID
 * token of the grant and is what GET /api/oauth/userinfo answers beside `sub`. The claims the
 * server sets itself (`iss`, `sub`, `aud`, times, `nonce`, hashes) cannot be replaced: a relying
 * party's checks of them must keep meaning something.
 */
import { OAuthError } from '../oauth-error.js';

/** A set of extra claims: a JSON object. */
export type Claims = Readonly<Record<string, unknown>>;

/** Claims the server sets or that a relying party validates; never taken from QA input. */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'auth_time',
  'nonce',
  'at_hash',
  'c_hash',
  's_hash',
  'azp',
]);

/** Bound on one set of extra claims as JSON (config entry, login form, minted code). */
export const MAX_CLAIMS_BYTES = 4096;
/** Bound on the merged claims of one ID token, hook included. */
export const MAX_MERGED_CLAIMS_BYTES = 8192;

/** What the hook is called with: a copy, so it may change `claims` freely. */
export interface IssueTokensInput {
  readonly client_id: string;
  readonly subject: string;
  /** The granted scope, space-delimited. */
  readonly scope: string;
  /** The extra claims so far: config (client, then subject), then the authorization's own. */
  readonly claims: Record<string, unknown>;
  readonly grant_type: 'authorization_code' | 'refresh_token';
}

/**
 * Called before every token response. Returns the extra claims to use instead of
 * `input.claims` (add, change or drop members), or undefined to keep them.
 */
export type IssueTokensHook = (
  input: IssueTokensInput,
) => Claims | undefined | void | Promise<Claims | undefined | void>;

/** The claims configuration the OAuth state holds. */
export interface ClaimsPolicy {
  readonly subjects: ReadonlyMap<string, Claims>;
  readonly clients: ReadonlyMap<string, Claims>;
  readonly hook: IssueTokensHook | undefined;
}

export const NO_CLAIMS: Claims = Object.freeze({});

export const EMPTY_POLICY: ClaimsPolicy = {
  subjects: new Map(),
  clients: new Map(),
  hook: undefined,
};

/** Why `value` cannot be a set of extra claims, or undefined when it can. */
export function claimsProblem(value: unknown, maxBytes = MAX_CLAIMS_BYTES): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'claims must be a JSON object';
  }
  for (const name of Object.keys(value)) {
    if (RESERVED_CLAIMS.has(name)) return `claim ${name} is set by the server and cannot be given`;
  }
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return 'claims must be JSON values';
  }
  if (Buffer.byteLength(json, 'utf8') > maxBytes) return `claims exceed ${maxBytes} bytes of JSON`;
  return undefined;
}

/** Parses the login form's claims text: empty is none; otherwise a JSON object. */
export function parseClaimsText(text: string | undefined): Claims | string {
  if (text === undefined || text.trim() === '') return NO_CLAIMS;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'claims are not valid JSON';
  }
  return claimsProblem(value) ?? (value as Claims);
}

/** Config claims for the client, then for the subject, then the authorization's own. */
function merged(
  policy: ClaimsPolicy,
  clientId: string,
  subject: string,
  own: Claims | undefined,
): Claims {
  const byClient = policy.clients.get(clientId);
  const bySubject = policy.subjects.get(subject);
  if (byClient === undefined && bySubject === undefined && own === undefined) return NO_CLAIMS;
  return { ...byClient, ...bySubject, ...own };
}

const hookFailed = (message: string, cause?: unknown): OAuthError =>
  new OAuthError('server_error', 'INTERNAL', `onIssueTokens: ${message}`, 500, false, { cause });

/**
 * The extra claims of one token response. Synchronous (no promise) unless a hook is set, so
 * the token endpoint's hot path is unchanged without one.
 */
export function claimsFor(
  policy: ClaimsPolicy,
  input: Omit<IssueTokensInput, 'claims'> & { readonly own: Claims | undefined },
): Claims | Promise<Claims> {
  const base = merged(policy, input.client_id, input.subject, input.own);
  const hook = policy.hook;
  if (hook === undefined) return base;
  const call: IssueTokensInput = {
    client_id: input.client_id,
    subject: input.subject,
    scope: input.scope,
    claims: structuredClone(base),
    grant_type: input.grant_type,
  };
  let result: ReturnType<IssueTokensHook>;
  try {
    result = hook(call);
  } catch (error) {
    return Promise.reject(hookFailed(`threw ${String(error)}`, error));
  }
  return Promise.resolve(result).then(
    (shaped) => {
      if (shaped === undefined) return base;
      let copy: unknown;
      try {
        copy = JSON.parse(JSON.stringify(shaped)) as unknown;
      } catch (error) {
        throw hookFailed('returned claims that are not JSON', error);
      }
      const problem = claimsProblem(copy, MAX_MERGED_CLAIMS_BYTES);
      if (problem !== undefined) throw hookFailed(problem);
      return copy as Claims;
    },
    (error: unknown) => {
      throw hookFailed(`threw ${String(error)}`, error);
    },
  );
}
