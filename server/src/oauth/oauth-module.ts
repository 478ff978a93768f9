// STUB: replaced by the OAuth area's implementation.
import type { ServerContext } from '../context.js';
import type { ServerModule } from '../module.js';

export type OAuthApi = Record<string, never>;

export function createOAuthModule(_ctx: ServerContext): Promise<ServerModule<OAuthApi>> {
  return Promise.resolve({
    name: 'oauth',
    register: () => undefined,
    reset: () => undefined,
    api: {},
  });
}
