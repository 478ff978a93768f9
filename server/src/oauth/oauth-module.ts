/**
 * The OAuth area as a server module (docs/PROTOCOL.md §4, docs/OAUTH.md): token, revoke,
 * authorize and its login page, introspect, userinfo, end-session and discovery routes in one
 * encapsulated Fastify scope with its own body parsers and error handler; the dev API; and the
 * in-process QA API (`mintCode`, `registerClient`, `clients`). The config's `oauth` part
 * (clients, claims, login page) and lifetimes, and the `onIssueTokens` hook, are read here.
 *
 * @example
 *   const oauth = await createOAuthModule(ctx);
 *   await app.register(async (s) => oauth.register(s));
 *   const { code, code_verifier } = oauth.api.mintCode({ client_id: 'desktop-app' });
 */
import { OAUTH_PATHS } from './discovery.js';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../compose/context.js';
import { ConfigError } from '../config/server-config.js';
import type { ServerModule } from '../compose/module.js';
import { registerOAuthAuthorize } from './routes/oauth-authorize.js';
import { registerOAuthDev } from './routes/oauth-dev.js';
import { registerOAuthDiscovery } from './routes/oauth-discovery.js';
import { registerOAuthEndSession } from './routes/oauth-end-session.js';
import { registerOAuthIntrospect } from './routes/oauth-introspect.js';
import { registerOAuthRevoke } from './routes/oauth-revoke.js';
import { registerOAuthToken } from './routes/oauth-token.js';
import { registerOAuthUserinfo } from './routes/oauth-userinfo.js';
import type { Claims, ClaimsPolicy } from './tokens/claims.js';
import type { ClientRegistration, ClientRegistry, OAuthClient } from './clients.js';
import { defaultRegistrations, readClientsFile } from './clients.js';
import type { MintCodeInput, MintedCode } from './grants/mint-code.js';
import { mintCode } from './grants/mint-code.js';
import { installOAuthScope } from './oauth-http.js';
import { oauthLimitsOf } from './oauth-limits.js';
import type { OAuthState } from './oauth-state.js';
import { createOAuthState } from './oauth-state.js';
import type { LimitedRoutes } from '../http/rate-limits.js';

/** Client-secret, code, token and password guessing is slowed (docs/SERVER.md §Rate limits). */
const LIMITED_ROUTES: LimitedRoutes = {
  every: [],
  failures: [
    OAUTH_PATHS.token,
    OAUTH_PATHS.revoke,
    OAUTH_PATHS.introspect,
    OAUTH_PATHS.userinfo,
    OAUTH_PATHS.login,
  ],
};

/** In-process controls, exposed on startServer()'s handle as `oauth`. */
export interface OAuthApi {
  /** Mints a code like the dev API (throws OAuthError on invalid input). */
  mintCode(input: MintCodeInput): MintedCode;
  /** Registers or replaces a client (throws ClientRegistrationError). */
  registerClient(reg: ClientRegistration): OAuthClient;
  readonly clients: ClientRegistry;
  /** The secret of the confidential client `qa-web`. */
  readonly qaClientSecret: string;
  /** The issuer as currently configured. */
  issuer(): string;
  /** The shared state, for tests and benchmarks. */
  readonly state: OAuthState;
}

/** The config's claims per client and subject, with the hook. */
function claimsPolicy(ctx: ServerContext): ClaimsPolicy {
  const claims = ctx.config.config.oauth?.claims;
  const entries = (m: Readonly<Record<string, Claims>> | undefined) =>
    new Map(Object.entries(m ?? {}));
  return {
    clients: entries(claims?.clients),
    subjects: entries(claims?.subjects),
    hook: ctx.options.onIssueTokens,
  };
}

/** Builds the OAuth module; refuses to start on a bad clients file or a short secret. */
/**
 * Registers the default clients, the --clients-file's and the config's, and checks that every
 * client the config's claims name exists. Returns the secret of qa-web in force (the config
 * may redefine it; the first stdout line reports it).
 */
async function registerClients(ctx: ServerContext, state: OAuthState): Promise<string> {
  const oauthConfig = ctx.config.config.oauth ?? {};
  const defaultSecret = ctx.options.qaClientSecret ?? ctx.random.token(32);
  for (const reg of defaultRegistrations(defaultSecret)) state.clients.register(reg);
  if (ctx.options.clientsFile !== undefined) {
    for (const reg of await readClientsFile(ctx.options.clientsFile)) state.clients.register(reg);
  }
  for (const reg of oauthConfig.clients ?? []) state.clients.register(reg);
  for (const id of state.claims.clients.keys()) {
    if (state.clients.get(id) === undefined) {
      throw new ConfigError(
        `${ctx.config.source}: $.oauth.claims.clients[${JSON.stringify(id)}]: no client ${id} is registered`,
      );
    }
  }
  return state.clients.get('qa-web')?.secret ?? defaultSecret;
}

export async function createOAuthModule(ctx: ServerContext): Promise<ServerModule<OAuthApi>> {
  // Only used under app.inject() before the port is known; a listening server has a base URL.
  const issuer = (): string => ctx.options.issuer ?? (ctx.baseUrl() || 'http://localhost');
  const oauthConfig = ctx.config.config.oauth ?? {};
  const state = createOAuthState({
    clock: ctx.clock,
    random: ctx.random,
    issuer,
    limits: oauthLimitsOf(ctx.config.config),
    claims: claimsPolicy(ctx),
    loginPage: oauthConfig.login_page ?? true,
  });
  const qaClientSecret = await registerClients(ctx, state);
  const scoped = (app: FastifyInstance, routes: (scope: FastifyInstance) => void): void => {
    void app.register((scope, _opts, done) => {
      installOAuthScope(scope, state.limits.bodyLimitBytes);
      routes(scope);
      done();
    });
  };
  return {
    name: 'oauth',
    register: (app) =>
      scoped(app, (scope) => {
        registerOAuthDiscovery(scope, state);
        registerOAuthAuthorize(scope, state);
        registerOAuthToken(scope, state);
        registerOAuthRevoke(scope, state);
        registerOAuthIntrospect(scope, state);
        registerOAuthUserinfo(scope, state);
        registerOAuthEndSession(scope, state);
      }),
    registerDev: (app) => scoped(app, (scope) => registerOAuthDev(scope, state)),
    reset: () => {
      state.codes.clear();
      state.grants.clear();
      state.logins.clear();
    },
    limitedRoutes: LIMITED_ROUTES,
    describe: () => ({ qa_client_secret: qaClientSecret }),
    api: {
      mintCode: (input) => mintCode(state, input),
      registerClient: (reg) => state.clients.register(reg),
      clients: state.clients,
      qaClientSecret,
      issuer,
      state,
    },
  };
}
