/**
 * Dev API of the OAuth area (only with --dev): POST /api/dev/oauth/codes mints a code with a
 * chosen subject, client, nonce, scope, redirect URI and PKCE pair; POST /api/dev/oauth/clients
 * registers a client. Bodies are JSON (or form); bad input is a 400 OAuth error body.
 */
import type { FastifyInstance } from 'fastify';
import type { ClientRegistration } from '../clients.js';
import { ClientRegistrationError } from '../clients.js';
import type { MintCodeInput } from '../grants/mint-code.js';
import { mintCode } from '../grants/mint-code.js';
import { parseClaimsText } from '../tokens/claims.js';
import { invalidRequest } from '../oauth-error.js';
import { noStore, rawBodyOf } from '../oauth-http.js';
import { optionalString, parseOAuthBody } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';

const MINT_FIELDS = [
  'client_id',
  'redirect_uri',
  'subject',
  'scope',
  'nonce',
  'code_challenge',
  'code_verifier',
] as const;

export function registerOAuthDev(scope: FastifyInstance, state: OAuthState): void {
  const opts = { bodyLimit: state.limits.bodyLimitBytes };
  scope.post('/api/dev/oauth/codes', opts, (request, reply) => {
    const params = parseOAuthBody(rawBodyOf(request));
    const input: Record<string, unknown> = {
      client_id: optionalString(params, 'client_id') ?? 'desktop-app',
    };
    for (const f of MINT_FIELDS.slice(1)) input[f] = optionalString(params, f);
    const pkce = params['pkce'];
    if (pkce !== undefined && typeof pkce !== 'boolean') {
      throw invalidRequest('PARAMETER_NOT_STRING', 'pkce must be a boolean');
    }
    input['pkce'] = pkce;
    // An object in a JSON body; JSON text in a form body.
    const claims = params['claims'];
    if (typeof claims === 'string') {
      const parsed = parseClaimsText(claims);
      if (typeof parsed === 'string') throw invalidRequest('CLAIMS_INVALID', parsed);
      input['claims'] = parsed;
    } else {
      input['claims'] = claims;
    }
    const minted = mintCode(state, input as unknown as MintCodeInput);
    return noStore(reply).code(201).send(minted);
  });
  scope.post('/api/dev/oauth/clients', opts, (request, reply) => {
    const params = parseOAuthBody(rawBodyOf(request));
    try {
      const client = state.clients.register(params as unknown as ClientRegistration);
      return reply
        .code(201)
        .send({ ok: true, client_id: client.id, public: client.secret === undefined });
    } catch (err) {
      // The dev API speaks OAuth: a refused registration is a 400 invalid_request.
      if (!(err instanceof ClientRegistrationError)) throw err;
      throw invalidRequest('PARAMETER_MALFORMED', err.message);
    }
  });
}
