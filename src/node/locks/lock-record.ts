/**
 * What a state-directory lock says about its holder, and whether that holder may still be
 * alive (docs/UPDATER.md §8, "Lock held for the updater's lifetime"). Kept apart from taking
 * and breaking the lock (lock-file.ts) because this is a pure function of the record and the
 * OS facts: a stale judgement is what allows a takeover, so it is tested on its own.
 *
 * The record names the holder: PID, host name, boot (Linux: the boot id; elsewhere the boot
 * time from os.uptime()), start time (Linux: /proc/<pid>/stat), and a random nonce. A lock of
 * another host is held (it cannot be judged from here); one from before a reboot, of a PID
 * that no longer exists (`process.kill(pid, 0)`: ESRCH), or of a PID now owned by a process
 * that started later (Linux) is stale.
 */
import { randomBytes } from 'node:crypto';
import type { OsFacts } from './os-facts.js';

/**
 * Off Linux a reboot is seen as the boot time (now - uptime) moving forward by more than
 * this; less (a clock adjustment, the seconds of uptime's resolution) is the same boot.
 */
export const BOOT_SLACK_MS = 10 * 60_000;

/** What a lock file says about its holder. */
export interface LockRecord {
  readonly pid: number;
  readonly host?: string;
  readonly bootId?: string;
  readonly bootTimeMs?: number;
  readonly startTime?: string;
  readonly nonce?: string;
}

export type Judgement =
  { readonly held: true; readonly why: string } | { readonly held: false; readonly why: string };

/** The record of a new lock held by this process (one line of JSON, readable with `cat`). */
export function ownRecord(facts: OsFacts): string {
  const record = {
    pid: facts.pid,
    host: facts.hostname(),
    ...(facts.bootId() === undefined ? {} : { bootId: facts.bootId() }),
    bootTimeMs: Math.round(facts.bootTimeMs()),
    ...(facts.startTime(facts.pid) === undefined ? {} : { startTime: facts.startTime(facts.pid) }),
    nonce: randomBytes(8).toString('hex'),
  };
  return `${JSON.stringify(record)}\n`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Parses a lock record: JSON, or the older "<pid> [<start time>]" line. */
export function parseRecord(text: string): LockRecord | undefined {
  const legacy = /^(\d+)(?: (\d+))?$/.exec(text.trim());
  if (legacy !== null) {
    const pid = Number(legacy[1]);
    return pid > 0
      ? { pid, ...(legacy[2] === undefined ? {} : { startTime: legacy[2] }) }
      : undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const o = json as Record<string, unknown>;
  if (typeof o['pid'] !== 'number' || !Number.isSafeInteger(o['pid']) || o['pid'] <= 0) {
    return undefined;
  }
  const record: {
    pid: number;
    host?: string;
    bootId?: string;
    bootTimeMs?: number;
    startTime?: string;
    nonce?: string;
  } = { pid: o['pid'] };
  const host = str(o['host']);
  const bootId = str(o['bootId']);
  const startTime = str(o['startTime']);
  const nonce = str(o['nonce']);
  if (host !== undefined) record.host = host;
  if (bootId !== undefined) record.bootId = bootId;
  if (typeof o['bootTimeMs'] === 'number') record.bootTimeMs = o['bootTimeMs'];
  if (startTime !== undefined) record.startTime = startTime;
  if (nonce !== undefined) record.nonce = nonce;
  return record;
}

/**
 * True when the record has a PID but nothing to tell its holder from a later owner of that
 * PID: no start time, no boot id, no boot time (a bare "1" line). PID 1 and other long-lived
 * PIDs always exist, so such a lock would be held for ever; it is judged by its age instead.
 */
export function lacksOwnerFacts(record: LockRecord): boolean {
  return (
    record.startTime === undefined && record.bootId === undefined && record.bootTimeMs === undefined
  );
}

/** Whether `record`'s holder may still be alive, as far as this machine can tell. */
export function judgeHolder(record: LockRecord, facts: OsFacts): Judgement {
  if (record.host !== undefined && record.host !== facts.hostname()) {
    return { held: true, why: `held by host ${record.host}, which cannot be checked from here` };
  }
  const bootId = facts.bootId();
  if (record.bootId !== undefined && bootId !== undefined) {
    if (record.bootId !== bootId) return { held: false, why: 'written before a reboot' };
  } else if (
    record.bootTimeMs !== undefined &&
    facts.bootTimeMs() - record.bootTimeMs > BOOT_SLACK_MS
  ) {
    return { held: false, why: 'written before a reboot' };
  }
  if (!facts.processExists(record.pid)) return { held: false, why: `pid ${record.pid} is gone` };
  const now = facts.startTime(record.pid);
  if (record.startTime !== undefined && now !== undefined && now !== record.startTime) {
    return { held: false, why: `pid ${record.pid} now belongs to a later process` };
  }
  return { held: true, why: `held by pid ${record.pid}` };
}
