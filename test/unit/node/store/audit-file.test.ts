import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAuditLog } from '#core/install/audit-log.js';
import { appendAuditFile } from '#node/store/audit-file.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const rec = { version: '1.0.0', payloadSha256: 'a'.repeat(64), keyid: 'b'.repeat(64), atMs: 5 };

describe('appendAuditFile', () => {
  it('creates the log and appends a verifiable chain', async () => {
    const path = join(await dirs.make(), 'audit.log');
    await appendAuditFile(path, rec);
    await appendAuditFile(path, { ...rec, version: '2.0.0' });
    const result = verifyAuditLog(await readFile(path, 'utf8'));
    expect(result.ok && result.entries.map((e) => e.version)).toEqual(['1.0.0', '2.0.0']);
  });

  it('refuses to extend a tampered log (STATE_CORRUPT)', async () => {
    const path = join(await dirs.make(), 'audit.log');
    await appendAuditFile(path, rec);
    await writeFile(path, (await readFile(path, 'utf8')).replace('1.0.0', '0.9.0'));
    await expect(appendAuditFile(path, rec)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
  });

  it('drops a torn (unterminated) last line and extends the intact chain', async () => {
    const path = join(await dirs.make(), 'audit.log');
    await appendAuditFile(path, rec);
    const intact = await readFile(path, 'utf8');
    await writeFile(path, `${intact}{"version":"2.0.0","payl`);
    await appendAuditFile(path, { ...rec, version: '3.0.0' });
    const result = verifyAuditLog(await readFile(path, 'utf8'));
    expect(result.ok && result.entries.map((e) => e.version)).toEqual(['1.0.0', '3.0.0']);
  });

  it('still refuses a broken line that is not the torn tail (STATE_CORRUPT)', async () => {
    const path = join(await dirs.make(), 'audit.log');
    await appendAuditFile(path, rec);
    await writeFile(path, `garbage\n${await readFile(path, 'utf8')}`);
    await expect(appendAuditFile(path, rec)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
  });
});
