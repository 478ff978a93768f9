/**
 * Test helper: the OAuth module on a bare Fastify app with a fake ServerContext (settable
 * clock, seeded randomness, silent logger), plus request shorthands for the token endpoint.
 */
import Fastify from 'fastify';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { ServerClock } from '#server/platform/clock.js';
import { validateConfig, type ServerConfig } from '#server/config/server-config.js';
import type { ServerContext } from '#server/compose/context.js';
import type { ServerModule } from '#server/compose/module.js';
import type { OAuthApi } from '#server/oauth/oauth-module.js';
import { createOAuthModule } from '#server/oauth/oauth-module.js';
import type { ServerOptions } from '#server/compose/options.js';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';
import { createRandom } from '#server/platform/random.js';

export const TEST_ISSUER = 'http://issuer.test';
export const QA_SECRET = 'qa-web-secret-0123456789abcdef-0123456789';
export const DESKTOP_REDIRECT = 'http://127.0.0.1:4567/callback';
export const QA_REDIRECT = 'http://localhost:3000/callback';

export interface OAuthHarness {
  readonly app: FastifyInstance;
  readonly module: ServerModule<OAuthApi>;
  readonly clock: ServerClock;
  /** Moves the injected clock forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

/**
 * Builds a ServerContext for tests; the clock starts at a fixed instant. `config` is validated
 * as a config file would be (docs/SERVER.md §Config file).
 */
export function fakeContext(
  options: Partial<ServerOptions> = {},
  config: ServerConfig = {},
): ServerContext {
  const clock = new ServerClock(() => Date.UTC(2026, 0, 1, 12, 0, 0));
  return {
    options: {
      ...DEFAULT_OPTIONS,
      qaClientSecret: QA_SECRET,
      issuer: TEST_ISSUER,
      seed: 7,
      ...options,
    },
    config: { config: validateConfig(config, 'config', process.cwd()), source: 'config' },
    clock,
    random: createRandom(options.seed ?? 7),
    dataDir: '/nonexistent',
    log: pino({ level: 'silent' }),
    baseUrl: () => '',
  };
}

/** The OAuth module (with its dev routes) on a bare Fastify app, ready for inject(). */
export async function oauthHarness(
  options: Partial<ServerOptions> = {},
  config: ServerConfig = {},
): Promise<OAuthHarness> {
  const ctx = fakeContext(options, config);
  const module = await createOAuthModule(ctx);
  const app = Fastify({ logger: false });
  await module.register(app);
  await module.registerDev?.(app);
  await app.ready();
  return {
    app,
    module,
    clock: ctx.clock,
    advance: (ms) => void ctx.clock.advance(ms),
    close: () => app.close(),
  };
}

/** Basic credentials per RFC 6749 §2.3.1 (form-url-encoded, then base64). */
export function basic(id: string, secret: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

/** POSTs a form body to a path. */
export function postForm(
  app: FastifyInstance,
  url: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(params).toString(),
  });
}

export interface TokenSet {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly id_token: string;
}

/** Mints a desktop-app code and redeems it; returns the tokens (throws on non-200). */
export async function desktopTokens(h: OAuthHarness, nonce?: string): Promise<TokenSet> {
  const m = h.module.api.mintCode({
    client_id: 'desktop-app',
    redirect_uri: DESKTOP_REDIRECT,
    nonce,
  });
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'desktop-app',
    code: m.code,
    redirect_uri: DESKTOP_REDIRECT,
    code_verifier: m.code_verifier ?? '',
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.body}`);
  return res.json<TokenSet>();
}

/** A fresh harness and the desktop app's token set in it: `beforeEach(async () => ({ h, t } = await harnessWithTokens()))`. */
export async function harnessWithTokens(): Promise<{ h: OAuthHarness; t: TokenSet }> {
  const h = await oauthHarness();
  return { h, t: await desktopTokens(h) };
}
