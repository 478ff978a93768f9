// STUB: replaced by the Chain area's implementation.
import type { ServerContext } from '../context.js';
import type { ServerModule } from '../module.js';

export type ChainApi = Record<string, never>;

export function createChainModule(_ctx: ServerContext): Promise<ServerModule<ChainApi>> {
  return Promise.resolve({
    name: 'chain',
    register: () => undefined,
    reset: () => undefined,
    api: {},
  });
}
