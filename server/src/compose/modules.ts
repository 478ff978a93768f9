/**
 * The list of server modules, in registration order. Each area's factory lives in its folder.
 */
import { createChainModule } from '../chain/chain-module.js';
import type { ServerContext } from './context.js';
import { createUpdatesModule } from '../updates/updates-module.js';
import { createOAuthModule } from '../oauth/oauth-module.js';

export async function createModules(ctx: ServerContext) {
  return {
    updates: await createUpdatesModule(ctx),
    oauth: await createOAuthModule(ctx),
    chain: await createChainModule(ctx),
  } as const;
}

export type Modules = Awaited<ReturnType<typeof createModules>>;
