/**
 * `verified-updater-server`: the companion server as a package for QA teams
 * (docs/SERVER.md §As a package). Compiled JavaScript with type declarations; no tsx needed.
 * @example
 *   import { startServer, verifyManifest } from 'verified-updater-server';
 *   const server = await startServer({ dev: true, simulate: false });
 *   const { machine_key } = await server.updates.mintMachineKey();
 *   await server.close();
 */
export { startServer, type RunningServer } from '../../../server/src/compose/start-server.js';
export { DEFAULT_OPTIONS, type ServerOptions } from '../../../server/src/compose/options.js';
export type { PublishInput, PublishResult } from '../../../server/src/updates/publish/publisher.js';
export type {
  ServerConfig,
  MachineConfig,
  ReleaseConfig,
  OAuthConfig,
  ChainConfig,
  LifetimesConfig,
  NodeKeyConfig,
} from '../../../server/src/config/server-config.js';
export type {
  Claims,
  IssueTokensHook,
  IssueTokensInput,
} from '../../../server/src/oauth/tokens/claims.js';
export type { ClientRegistration } from '../../../server/src/oauth/clients.js';
export {
  verifyAnswer,
  verifyManifest,
  UpdateError,
  type AnswerCheckOptions,
  type CheckedManifest,
  type UpdateErrorCode,
  type VerifiedManifest,
} from './verify.js';
// Where an updater's state directory has its live set, whatever the swap strategy
// (docs/UPDATER.md §2): for QA tests that inspect what the updater installed.
export { resolveCurrentSet } from '../../../src/node/store/index.js';
