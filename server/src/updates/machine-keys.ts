/**
 * Machine keys and their subscriptions (docs/PROTOCOL.md §3). A key is shown once, at mint;
 * only its SHA-256 digest is kept (in memory and in machines.json), and lookup is by digest,
 * so no comparison ever runs over secret bytes. An active subscription lasts 30 days of the
 * server clock; inactive or expired ones are refused with SUBSCRIPTION_INACTIVE.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ServerClock } from '../platform/clock.js';
import { HttpError } from '../http/http-error.js';
import { RecordJournal } from '../platform/record-journal.js';
import type { RandomSource } from '../platform/random.js';
import { parseBearer } from './bearer.js';

export const SUBSCRIPTION_DAYS = 30;
export const SUBSCRIPTION_MS = SUBSCRIPTION_DAYS * 24 * 3600 * 1000;
/** Bounds memory and the machines.json file. */
export const MAX_MACHINES = 100_000;
export const MAX_LABEL_CHARS = 100;
export const MACHINES_FILE = 'machines.json';

export type SubscriptionStatus = 'active' | 'inactive';

export interface MachineRecord {
  readonly machine_id: string;
  /** Lowercase hex SHA-256 of the machine key; the key itself is never stored. */
  readonly key_sha256: string;
  readonly label: string | null;
  readonly created_at: string;
  status: SubscriptionStatus;
  /** RFC 3339 end of an active subscription; null when inactive. */
  expires_at: string | null;
}

export interface MintResult {
  readonly machine_key: string;
  readonly machine_id: string;
  readonly subscription: {
    readonly status: SubscriptionStatus;
    readonly expires_at: string | null;
  };
}

const digestOf = (key: string): string => createHash('sha256').update(key).digest('hex');

// RFC 6750 §3: a 401 for a bearer resource carries a WWW-Authenticate challenge.
const CHALLENGE = { headers: { 'www-authenticate': 'Bearer realm="updates"' } };

export class MachineKeys {
  readonly #byDigest = new Map<string, MachineRecord>();
  readonly #byId = new Map<string, MachineRecord>();
  readonly #journal: RecordJournal<MachineRecord>;

  constructor(
    dataDir: string,
    private readonly clock: ServerClock,
    private readonly random: RandomSource,
  ) {
    // One appended line per change, not a rewrite of every record (docs/SERVER.md §Data directory).
    this.#journal = new RecordJournal<MachineRecord>({
      snapshot: join(dataDir, MACHINES_FILE),
      member: 'machines',
      idOf: (r) => r.machine_id,
      remedy:
        'restore it from a backup, or move it away to start with no machine keys (every key minted so far is then refused)',
    });
  }

  /** Loads machines.json and its journal; a corrupt one is named with what to do. */
  async load(): Promise<void> {
    await this.#journal.load();
    for (const m of this.#journal.records.values()) this.#add(m);
  }

  /** Creates a machine key; the caller sees it once. */
  async mint(status: SubscriptionStatus, label: string | null): Promise<MintResult> {
    if (this.#byId.size >= MAX_MACHINES) {
      throw new HttpError(429, 'MACHINE_LIMIT_REACHED', `at most ${MAX_MACHINES} machine keys`);
    }
    const machine_key = `mk_${this.random.token(32)}`;
    const now = this.clock.now();
    const record: MachineRecord = {
      machine_id: `m_${this.random.token(12)}`,
      key_sha256: digestOf(machine_key),
      label,
      created_at: new Date(now).toISOString(),
      status,
      expires_at: status === 'active' ? new Date(now + SUBSCRIPTION_MS).toISOString() : null,
    };
    this.#add(record);
    await this.#journal.put(record);
    return {
      machine_key,
      machine_id: record.machine_id,
      subscription: { status: record.status, expires_at: record.expires_at },
    };
  }

  /**
   * Adds a machine with a key chosen by the caller (a config file's fixed machine keys, so
   * tests can hard-code them). Replaces a record with the same key or the same machine id.
   * `expiresAt` (RFC 3339) is the end of an active subscription; default 30 days from now.
   */
  async put(fixed: {
    readonly machineKey: string;
    readonly machineId: string;
    readonly label: string | null;
    readonly status: SubscriptionStatus;
    readonly expiresAt?: string | undefined;
  }): Promise<MachineRecord> {
    const digest = digestOf(fixed.machineKey);
    const now = this.clock.now();
    const replaced: Promise<void>[] = [];
    for (const old of [this.#byDigest.get(digest), this.#byId.get(fixed.machineId)]) {
      if (old === undefined) continue;
      this.#byDigest.delete(old.key_sha256);
      this.#byId.delete(old.machine_id);
      if (old.machine_id !== fixed.machineId) replaced.push(this.#journal.delete(old.machine_id));
    }
    await Promise.all(replaced);
    if (this.#byId.size >= MAX_MACHINES) {
      throw new HttpError(429, 'MACHINE_LIMIT_REACHED', `at most ${MAX_MACHINES} machine keys`);
    }
    const record: MachineRecord = {
      machine_id: fixed.machineId,
      key_sha256: digest,
      label: fixed.label,
      created_at: new Date(now).toISOString(),
      status: fixed.status,
      expires_at:
        fixed.status !== 'active'
          ? null
          : (fixed.expiresAt ?? new Date(now + SUBSCRIPTION_MS).toISOString()),
    };
    this.#add(record);
    await this.#journal.put(record);
    return { ...record };
  }

  /** Sets a machine's subscription (dev API); active restarts the 30 days. */
  async setSubscription(machineId: string, status: SubscriptionStatus): Promise<MachineRecord> {
    const record = this.#byId.get(machineId);
    if (record === undefined) throw new HttpError(404, 'MACHINE_NOT_FOUND', 'no such machine');
    record.status = status;
    record.expires_at =
      status === 'active' ? new Date(this.clock.now() + SUBSCRIPTION_MS).toISOString() : null;
    await this.#journal.put(record);
    return { ...record };
  }

  /**
   * Checks an Authorization header; returns the machine or throws HttpError 401 with
   * MISSING_MACHINE_KEY, INVALID_MACHINE_KEY or SUBSCRIPTION_INACTIVE.
   */
  authenticate(header: string | string[] | undefined): MachineRecord {
    const bearer = parseBearer(header);
    if (!bearer.ok) {
      const message =
        bearer.code === 'MISSING_MACHINE_KEY'
          ? 'send Authorization: Bearer <machine key>'
          : 'the Authorization header is not a valid machine key';
      throw new HttpError(401, bearer.code, message, CHALLENGE);
    }
    const record = this.#byDigest.get(digestOf(bearer.key));
    if (record === undefined) {
      throw new HttpError(401, 'INVALID_MACHINE_KEY', 'unknown machine key', CHALLENGE);
    }
    if (record.status !== 'active' || record.expires_at === null) {
      throw new HttpError(401, 'SUBSCRIPTION_INACTIVE', 'the subscription is inactive', CHALLENGE);
    }
    if (this.clock.now() >= Date.parse(record.expires_at)) {
      throw new HttpError(401, 'SUBSCRIPTION_INACTIVE', 'the subscription has expired', CHALLENGE);
    }
    return record;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Forgets every machine (dev reset). */
  async clear(): Promise<void> {
    this.#byDigest.clear();
    this.#byId.clear();
    await this.#journal.clear();
  }

  #add(record: MachineRecord): void {
    this.#byDigest.set(record.key_sha256, record);
    this.#byId.set(record.machine_id, record);
  }
}
