/**
 * Decides which registry the app talks to and with which trust anchor (docs/DESKTOP.md
 * §Decisions, "First run").
 *
 * - A configured base URL: the pinned keys come from settings, else from the key file shipped
 *   in resources/. Nothing is ever fetched from the network to decide what to trust; no key
 *   means CONFIG_INVALID (fail closed), never "trust on first use".
 * - Nothing configured: the embedded demo. The companion server is started in-process on
 *   loopback with a demo release, a demo machine key is minted from it, and the key pinned is
 *   the one the in-process handle reports (not one read over HTTP). Labelled "Demo registry".
 */
import semver from 'semver';
import { errnoDetails, isUpdateError, UpdateError } from '#core/errors.js';
import type { SessionFetch } from '#node/http/index.js';
import { parsePubkeyHex } from '#protocol/keys.js';
import { registryUrlProblem } from './registry-fields.js';
import type { ShippedRegistry } from './shipped-registry.js';

/** The slice of startServer()'s handle (server/src/compose/start-server.ts) the demo needs. */
export interface DemoServer {
  readonly url: string;
  readonly nodePubkey: string;
  publish(release: {
    registry_version: string;
    artifacts: readonly { readonly name: string; readonly content: Uint8Array }[];
    expires_in_s?: number;
  }): Promise<unknown>;
  /** The release a persistent data directory already holds (from an earlier start). */
  readonly updates: {
    currentRelease():
      | { readonly manifest: { readonly registry_version: string; readonly expiresAtMs: number } }
      | undefined;
  };
  close(): Promise<void>;
}

export interface RegistryChoice {
  readonly baseUrl: string;
  readonly pubkeys: readonly string[];
  readonly machineKey: string;
  readonly label: string;
  readonly demo: DemoServer | null;
  /** The TUF root trust starts from (resources/root.json or registry.json's), when shipped. */
  readonly trustedRoot: Uint8Array | null;
}

export interface FirstRunDeps {
  readonly settings: {
    readonly baseUrl: string;
    readonly pinnedKeys: readonly string[];
    /** The root kept from the settings screen: trust starts from it for the settings' registry. */
    readonly trustedRoot?: Uint8Array | null;
  };
  /** Reads resources/pinned-key.txt; null when the build ships none. */
  readonly readBundledKey: () => Promise<string | null>;
  /**
   * Reads resources/registry.json (src/app/registry/shipped-registry.ts): null when the build ships
   * none, a refusal when it ships a broken one. Omitted: no shipped registry.
   */
  readonly readShippedRegistry?: () => Promise<ShippedRegistry | null>;
  /**
   * Reads a TUF root from resources/: the file registry.json names, else root.json; null when
   * the build ships none. Omitted: no shipped root.
   */
  readonly readTrustedRoot?: (fileName: string | undefined) => Promise<Uint8Array | null>;
  readonly secrets: { load(): string | null; save(machineKey: string): boolean };
  /** Starts the companion server on loopback (dev routes off). */
  readonly startDemoServer: () => Promise<DemoServer>;
  /** Used only to mint the demo key from the in-process server. */
  readonly fetch?: SessionFetch;
  /** Injected clock for the demo release's freshness (default Date.now). */
  readonly nowMs?: () => number;
}

export const DEMO_LABEL = 'Demo registry';

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** The release the demo server publishes, so a first check has something to install. */
export const DEMO_RELEASE = {
  registry_version: '1.0.0',
  artifacts: [
    { name: 'README.txt', content: utf8('Installed by the verified updater demo.\n') },
    { name: 'data/greeting.txt', content: utf8('Hello from the demo registry.\n') },
  ],
};

/** Demo releases are signed for the longest lifetime the server allows (a year). */
export const DEMO_EXPIRES_IN_S = 366 * 24 * 3600;
/** A stored demo release closer than this to expiry is re-issued at start. */
export const DEMO_REFRESH_BEFORE_MS = 30 * 24 * 3_600_000;

/**
 * What to publish at start, if anything. The demo server keeps its releases in a persistent
 * data directory, and versions only move forward, so a second start must not re-publish
 * 1.0.0; a stored release near expiry is re-issued as the next patch version (same files)
 * instead of letting the app fail MANIFEST_EXPIRED after a year.
 */
export function demoReleaseToPublish(
  current: { readonly registry_version: string; readonly expiresAtMs: number } | undefined,
  nowMs: number,
): typeof DEMO_RELEASE | null {
  if (current === undefined || semver.lt(current.registry_version, DEMO_RELEASE.registry_version)) {
    return DEMO_RELEASE;
  }
  if (current.expiresAtMs - nowMs > DEMO_REFRESH_BEFORE_MS) return null;
  const next = semver.inc(current.registry_version, 'patch');
  return next === null ? null : { ...DEMO_RELEASE, registry_version: next };
}

/**
 * Resolves the registry; the caller closes `demo` on quit. In order: the registry the user
 * chose in the settings, the one the build ships (resources/registry.json, docs/DESKTOP.md
 * "Shipping a registry"), the embedded demo.
 */
export async function chooseRegistry(deps: FirstRunDeps): Promise<RegistryChoice> {
  const baseUrl = deps.settings.baseUrl.trim();
  if (baseUrl !== '') {
    const kept = deps.settings.trustedRoot ?? null;
    return configuredRegistry(baseUrl, deps.settings.pinnedKeys, deps, undefined, kept);
  }
  const shipped = (await deps.readShippedRegistry?.()) ?? null;
  if (shipped !== null) {
    const { baseUrl: shippedUrl, pinnedKeys, trustedRoot } = shipped;
    return configuredRegistry(shippedUrl, pinnedKeys, deps, trustedRoot, null);
  }
  return demoRegistry(deps);
}

async function configuredRegistry(
  baseUrl: string,
  pinnedKeys: readonly string[],
  deps: FirstRunDeps,
  rootFile: string | undefined,
  keptRoot: Uint8Array | null,
): Promise<RegistryChoice> {
  // The same rule as the settings screen: https, plain http only to this computer.
  const urlProblem = registryUrlProblem(baseUrl);
  if (urlProblem !== null) {
    throw new UpdateError('CONFIG_INVALID', `The registry address is refused: ${urlProblem}`);
  }
  const url = new URL(baseUrl);
  // The settings screen's root (judged when it was saved) before any shipped or given one.
  const trustedRoot = keptRoot ?? (await deps.readTrustedRoot?.(rootFile)) ?? null;
  const bundled = pinnedKeys.length > 0 ? null : await deps.readBundledKey();
  const pubkeys = [...pinnedKeys];
  if (bundled !== null) pubkeys.push(bundled.trim());
  // A TUF root is an anchor of its own (docs/PROTOCOL.md §TUF repository, "Client").
  if (pubkeys.length === 0 && trustedRoot === null) {
    // Fail closed: a registry without a pinned key would mean trusting whatever it sends.
    throw new UpdateError('NO_PINNED_KEY', 'A configured registry needs a pinned public key.');
  }
  for (const key of pubkeys) {
    try {
      parsePubkeyHex(key);
    } catch (cause) {
      throw new UpdateError('CONFIG_INVALID', 'A pinned key is not 64 lowercase hex characters.', {
        cause,
      });
    }
  }
  const machineKey = deps.secrets.load();
  if (machineKey === null) {
    throw new UpdateError('CONFIG_INVALID', 'No machine key is stored for this registry.');
  }
  return { baseUrl, pubkeys, machineKey, label: url.host, demo: null, trustedRoot };
}

async function demoRegistry(deps: FirstRunDeps): Promise<RegistryChoice> {
  let server: DemoServer;
  try {
    server = await deps.startDemoServer();
  } catch (cause) {
    // Typed, so the tray app stays up and shows it (index.ts) instead of exiting.
    if (isUpdateError(cause)) throw cause;
    // With its cause: a data directory that is a file (`serve --data-dir FILE`) or unwritable
    // read as a bare "could not start", leaving the user to guess (docs/UPDATER.md §serve).
    const why = cause instanceof Error ? ` ${cause.message}` : '';
    throw new UpdateError('IO', `The demo registry could not start.${why}`, {
      cause,
      details: errnoDetails(cause),
    });
  }
  try {
    const now = deps.nowMs?.() ?? Date.now();
    const release = demoReleaseToPublish(server.updates.currentRelease()?.manifest, now);
    if (release !== null) await server.publish({ ...release, expires_in_s: DEMO_EXPIRES_IN_S });
    const machineKey = await mintDemoKey(server.url, deps.fetch ?? fetch);
    // Pinned from the in-process handle: the HTTP path is never asked which key to trust.
    parsePubkeyHex(server.nodePubkey);
    return {
      baseUrl: server.url,
      pubkeys: [server.nodePubkey],
      machineKey,
      label: DEMO_LABEL,
      demo: server,
      trustedRoot: null,
    };
  } catch (error) {
    await server.close();
    if (isUpdateError(error)) throw error;
    throw new UpdateError('IO', 'The demo registry could not publish its release.', {
      cause: error,
    });
  }
}

async function mintDemoKey(baseUrl: string, doFetch: SessionFetch): Promise<string> {
  const url = new URL('api/demo-key/mint', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(5_000),
    });
  } catch (cause) {
    throw new UpdateError('NETWORK', 'The demo registry could not be reached.', { cause });
  }
  // A body that is not JSON is a refusal like any other, not a crash.
  const body = (await response.json().catch(() => ({}))) as { ok?: unknown; machine_key?: unknown };
  if (response.status !== 200 || body.ok !== true || typeof body.machine_key !== 'string') {
    throw new UpdateError(
      'HTTP_STATUS',
      `The demo registry refused to mint a key (${response.status}).`,
    );
  }
  return body.machine_key;
}
