/**
 * An in-memory TUF repository for the client tests: keys per role, versions and expiries to
 * set by hand, `publish()` signing targets roles, snapshot and timestamp into a MapFetcher.
 */
import { createHash } from 'node:crypto';
import { TufUpdater, metadataFileName, type TufClientConfig } from '#core/tuf/index.js';
import {
  BASE,
  DAY,
  MapFetcher,
  MemoryStore,
  NOW,
  TARGETS,
  iso,
  metaOf,
  newKey,
  signed,
  targetOf,
  type TestKey,
} from './tuf-kit.js';

export interface RoleSpec {
  version: number;
  expires: string;
  signers: TestKey[];
  targets: Record<string, unknown>;
  delegations?: Record<string, unknown>;
  custom?: Record<string, unknown>;
}

type Top = 'root' | 'timestamp' | 'snapshot' | 'targets';

export class SimRepo {
  readonly fetcher = new MapFetcher();
  readonly store = new MemoryStore();
  readonly keys: Record<Top, TestKey[]> = {
    root: [newKey()],
    timestamp: [newKey()],
    snapshot: [newKey()],
    targets: [newKey()],
  };
  readonly thresholds: Record<Top, number> = { root: 1, timestamp: 1, snapshot: 1, targets: 1 };
  rootVersion = 1;
  rootExpires = iso(NOW + 30 * DAY);
  consistent = false;
  timestamp = { version: 1, expires: iso(NOW + DAY) };
  snapshot = { version: 1, expires: iso(NOW + 30 * DAY) };
  /** Whether timestamp and snapshot give lengths and hashes of the files they name. */
  withHashes = true;
  readonly roles = new Map<string, RoleSpec>();
  readonly published = new Map<string, Uint8Array>();
  initialRoot: Uint8Array;

  constructor() {
    this.roles.set('targets', {
      version: 1,
      expires: iso(NOW + 30 * DAY),
      signers: this.keys.targets,
      targets: {},
    });
    this.initialRoot = this.publishRoot();
    this.publish();
  }

  rootBody(): Record<string, unknown> {
    const keys: Record<string, unknown> = {};
    const roles: Record<string, unknown> = {};
    for (const role of ['root', 'timestamp', 'snapshot', 'targets'] as const) {
      for (const key of this.keys[role]) keys[key.keyid] = key.json;
      roles[role] = {
        keyids: this.keys[role].map((k) => k.keyid),
        threshold: this.thresholds[role],
      };
    }
    return {
      _type: 'root',
      spec_version: '1.0.31',
      version: this.rootVersion,
      expires: this.rootExpires,
      consistent_snapshot: this.consistent,
      keys,
      roles,
    };
  }

  /** Signs the current root with its keys (and `extra` ones) and serves it as N.root.json. */
  publishRoot(extra: readonly TestKey[] = [], signers = this.keys.root): Uint8Array {
    const bytes = signed(this.rootBody(), [...signers, ...extra]);
    this.serve(`${this.rootVersion}.root.json`, bytes);
    return bytes;
  }

  /** Rotates to root N+1 signed by the old root keys and the new ones. */
  rotateRoot(change: () => void): Uint8Array {
    const old = this.keys.root;
    change();
    this.rootVersion += 1;
    const extra = old.filter((k) => !this.keys.root.includes(k));
    return this.publishRoot(extra);
  }

  delegate(
    from: string,
    spec: Record<string, unknown>,
    child: Partial<RoleSpec> & { name: string },
  ): TestKey {
    const key = newKey();
    const parent = this.roles.get(from);
    if (parent === undefined) throw new Error(`no role ${from}`);
    const delegations = (parent.delegations ??= { keys: {}, roles: [] }) as {
      keys: Record<string, unknown>;
      roles: unknown[];
    };
    delegations.keys[key.keyid] = key.json;
    delegations.roles.push({
      name: child.name,
      keyids: [key.keyid],
      threshold: 1,
      terminating: false,
      ...spec,
    });
    this.roles.set(child.name, {
      version: 1,
      expires: iso(NOW + 30 * DAY),
      signers: [key],
      targets: {},
      ...child,
    });
    return key;
  }

  addTarget(role: string, path: string, content: string): void {
    const spec = this.roles.get(role);
    if (spec === undefined) throw new Error(`no role ${role}`);
    const info = targetOf(content);
    spec.targets[path] = info;
    const hash = (info['hashes'] as Record<string, string>)['sha256'] ?? '';
    const slash = path.lastIndexOf('/');
    const name = this.consistent
      ? `${path.slice(0, slash + 1)}${hash}.${path.slice(slash + 1)}`
      : path;
    this.fetcher.files.set(`${TARGETS}${name}`, Buffer.from(content));
  }

  serve(fileName: string, bytes: Uint8Array): void {
    this.published.set(fileName, bytes);
    this.fetcher.files.set(`${BASE}${fileName}`, bytes);
  }

  /** Signs and serves every targets role, then snapshot and timestamp. */
  publish(): void {
    const meta: Record<string, unknown> = {};
    for (const [name, spec] of this.roles) {
      const body = {
        _type: 'targets',
        spec_version: '1.0.31',
        version: spec.version,
        expires: spec.expires,
        targets: spec.targets,
        ...(spec.delegations === undefined ? {} : { delegations: spec.delegations }),
        ...(spec.custom === undefined ? {} : { custom: spec.custom }),
      };
      const bytes = signed(body, spec.signers);
      this.serve(metadataFileName(name, this.consistent ? spec.version : undefined), bytes);
      meta[`${name}.json`] = this.withHashes
        ? metaOf(bytes, spec.version)
        : { version: spec.version };
    }
    const snapshot = signed(
      {
        _type: 'snapshot',
        spec_version: '1.0.31',
        version: this.snapshot.version,
        expires: this.snapshot.expires,
        meta,
      },
      this.keys.snapshot,
    );
    this.serve(
      metadataFileName('snapshot', this.consistent ? this.snapshot.version : undefined),
      snapshot,
    );
    const snapshotMeta = this.withHashes
      ? metaOf(snapshot, this.snapshot.version)
      : { version: this.snapshot.version };
    this.serve(
      'timestamp.json',
      signed(
        {
          _type: 'timestamp',
          spec_version: '1.0.31',
          version: this.timestamp.version,
          expires: this.timestamp.expires,
          meta: { 'snapshot.json': snapshotMeta },
        },
        this.keys.timestamp,
      ),
    );
  }

  /** Bumps the versions of `roles` (and always snapshot and timestamp), then publishes. */
  bump(...roles: string[]): void {
    for (const role of roles) {
      const spec = this.roles.get(role);
      if (spec !== undefined) spec.version += 1;
    }
    this.snapshot.version += 1;
    this.timestamp.version += 1;
    this.publish();
  }

  /** A client whose store holds root v1 (CLIENT-CLI.md `init`), opened at `nowMs`. */
  async client(nowMs = NOW, config: Partial<TufClientConfig> = {}): Promise<TufUpdater> {
    if (!this.store.files.has('root')) await this.store.write('root', this.initialRoot);
    return TufUpdater.open({
      metadataBaseUrl: BASE,
      fetcher: this.fetcher,
      store: this.store,
      clock: { nowMs: () => nowMs },
      config,
    });
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
