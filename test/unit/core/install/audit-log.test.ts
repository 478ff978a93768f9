import { describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  nextAuditEntry,
  verifyAuditLog,
  type AuditEntry,
} from '#core/install/audit-log.js';

const record = (version: string) => ({
  version,
  payloadSha256: 'a'.repeat(64),
  keyid: 'b'.repeat(64),
  atMs: 1,
});

function log(...versions: string[]): AuditEntry[] {
  const entries: AuditEntry[] = [];
  for (const v of versions) entries.push(nextAuditEntry(entries.at(-1), record(v)));
  return entries;
}

const text = (entries: AuditEntry[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

describe('audit log', () => {
  it('chains each entry to the previous one from a genesis hash', () => {
    const [a, b] = log('1.0.0', '1.1.0');
    expect(a?.prev).toBe(GENESIS_HASH);
    expect(b?.prev).toBe(a?.hash);
    expect(b?.seq).toBe(1);
  });

  it('verifies an intact log', () => {
    const result = verifyAuditLog(text(log('1.0.0', '1.1.0', '2.0.0')));
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.entries).toHaveLength(3);
  });

  it('detects an edited entry', () => {
    const entries = log('1.0.0', '1.1.0');
    const edited = [entries[0], { ...entries[1]!, version: '9.9.9' }] as AuditEntry[];
    expect(verifyAuditLog(text(edited))).toEqual({ ok: false, brokenAt: 1 });
  });

  it('detects a deleted entry', () => {
    const [a, , c] = log('1.0.0', '1.1.0', '1.2.0');
    expect(verifyAuditLog(text([a!, c!]))).toEqual({ ok: false, brokenAt: 1 });
  });

  it('detects a line that is not JSON', () => {
    expect(verifyAuditLog(`${text(log('1.0.0'))}garbage\n`)).toEqual({ ok: false, brokenAt: 1 });
  });

  it('chains marked-bad entries (health check) and detects an edited reason', () => {
    const [a] = log('1.0.0');
    const bad = nextAuditEntry(a, {
      ...record('2.0.0'),
      keyid: '',
      event: 'marked-bad',
      reason: 'exit 1',
    });
    expect(verifyAuditLog(text([a!, bad]))).toMatchObject({ ok: true });
    expect(verifyAuditLog(text([a!, { ...bad, reason: 'fine' }]))).toEqual({
      ok: false,
      brokenAt: 1,
    });
    // An entry without the new fields hashes exactly as before they existed.
    expect(Object.keys(a!)).toEqual([
      'seq',
      'prev',
      'version',
      'payloadSha256',
      'keyid',
      'atMs',
      'hash',
    ]);
  });
});
