/**
 * A local, append-only, hash-chained log of every manifest the updater accepted (feature
 * table §9.5 item 5: no anchor has one). Each line is JSON carrying the SHA-256 of the line
 * before it, so deleting, reordering or editing an entry breaks the chain at that point.
 * Pure: the node store appends the lines; `verifyAuditLog` checks a whole file.
 */
import { createHash } from 'node:crypto';

export interface AuditRecord {
  readonly version: string;
  readonly payloadSha256: string;
  /** The key that signed the accepted manifest ('' on a `marked-bad` entry). */
  readonly keyid: string;
  readonly atMs: number;
  /**
   * Absent: a newly accepted manifest. `marked-bad`: that version failed its health check here
   * and was reverted (docs/UPDATER.md §3), with `reason`. Hashed only when present, so entries
   * written before these fields existed keep their hashes.
   */
  readonly event?: 'marked-bad';
  readonly reason?: string;
}

export interface AuditEntry extends AuditRecord {
  readonly seq: number;
  /** hash of the previous entry, or 64 zeros for the first. */
  readonly prev: string;
  /** SHA-256 of this entry's JSON without `hash`. */
  readonly hash: string;
}

export const GENESIS_HASH = '0'.repeat(64);

function digest(body: Omit<AuditEntry, 'hash'>): string {
  const text = JSON.stringify([
    body.seq,
    body.prev,
    body.version,
    body.payloadSha256,
    body.keyid,
    body.atMs,
    ...(body.event === undefined ? [] : [body.event, body.reason ?? '']),
  ]);
  return createHash('sha256').update(text).digest('hex');
}

/** The entry following `last` (or the first one). */
export function nextAuditEntry(last: AuditEntry | undefined, record: AuditRecord): AuditEntry {
  const body = {
    seq: last === undefined ? 0 : last.seq + 1,
    prev: last?.hash ?? GENESIS_HASH,
    version: record.version,
    payloadSha256: record.payloadSha256,
    keyid: record.keyid,
    atMs: record.atMs,
    ...(record.event === undefined ? {} : { event: record.event, reason: record.reason ?? '' }),
  };
  return { ...body, hash: digest(body) };
}

/** Parses the log text and checks the chain; returns the entries or where it breaks. */
export function verifyAuditLog(
  text: string,
): { ok: true; entries: AuditEntry[] } | { ok: false; brokenAt: number } {
  const entries: AuditEntry[] = [];
  const lines = text.split('\n').filter((l) => l.length > 0);
  for (let i = 0; i < lines.length; i++) {
    let entry: AuditEntry;
    try {
      entry = JSON.parse(lines[i] as string) as AuditEntry;
    } catch {
      return { ok: false, brokenAt: i };
    }
    const prev = entries[i - 1];
    const expected = nextAuditEntry(prev, entry);
    if (
      entry.seq !== expected.seq ||
      entry.prev !== expected.prev ||
      entry.hash !== expected.hash
    ) {
      return { ok: false, brokenAt: i };
    }
    entries.push(entry);
  }
  return { ok: true, entries };
}
