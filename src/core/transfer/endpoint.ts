/**
 * The update service one updater talks to: its base URL, parsed and checked once where the
 * updater is created (src/node/create-updater.ts), and the machine key that may be sent only
 * to its origin (http-get.ts). Every URL of a run resolves against `base`.
 */
import { UpdateError } from '../errors.js';

export interface Endpoint {
  /** The base URL, always ending in '/' so relative paths keep a path prefix. */
  readonly base: URL;
  /** The bearer machine key; '' when only local commands (status, rollback, verify) run. */
  readonly machineKey: string;
}

/** Parses an http(s) base URL; CONFIG_INVALID otherwise. */
export function parseEndpoint(baseUrl: string, machineKey: string): Endpoint {
  let base: URL;
  try {
    base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  } catch (cause) {
    throw new UpdateError('CONFIG_INVALID', 'base URL is not a valid URL', { cause });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new UpdateError('CONFIG_INVALID', 'base URL must be http or https');
  }
  return { base, machineKey };
}

/** The endpoint of a network run: refuses a missing base URL or machine key. */
export function requireEndpoint(endpoint: Endpoint | undefined): Endpoint {
  if (endpoint === undefined) throw new UpdateError('CONFIG_INVALID', 'base URL is required');
  if (endpoint.machineKey === '') {
    throw new UpdateError('CONFIG_INVALID', 'machine key is required');
  }
  return endpoint;
}
