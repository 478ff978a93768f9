// STUB: replaced by the Updates area's implementation.
import type { ServerContext } from '../context.js';
import type { ServerModule } from '../module.js';

export type UpdatesApi = Record<string, never>;

export function createUpdatesModule(_ctx: ServerContext): Promise<ServerModule<UpdatesApi>> {
  return Promise.resolve({
    name: 'manifest',
    register: () => undefined,
    reset: () => undefined,
    api: {},
  });
}
