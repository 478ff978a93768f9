import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { busy, failed, verifyResult } from '#app/action-results.js';

describe('action results', () => {
  it('a refusal of the core keeps its code and message', () => {
    const answer = failed(new UpdateError('NOTHING_TO_ROLL_BACK', 'no previous set'), 'fallback');
    expect(answer).toMatchObject({ ok: false, error: { code: 'NOTHING_TO_ROLL_BACK' } });
  });

  it('anything else is an IO failure in the fallback words', () => {
    const answer = failed(new TypeError('boom'), 'Verify stopped unexpectedly.');
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'IO', words: 'Verify stopped unexpectedly.' },
    });
    expect(JSON.stringify(answer)).not.toContain('boom');
  });

  it('busy says what to do first', () => {
    const answer = busy('roll back');
    expect(answer).toMatchObject({ ok: false, error: { code: 'BUSY' } });
    expect(answer.ok ? '' : answer.error.message).toMatch(/cancel it, then roll back\.$/);
  });

  it('a clean verify names the version', () => {
    expect(verifyResult({ version: '2.0.0', ok: true, drift: [] })).toEqual({
      ok: true,
      words: 'Every installed file of 2.0.0 matches its signed checksum.',
    });
  });

  it('one drifted file is named in the singular', () => {
    const answer = verifyResult({
      version: '2.0.0',
      ok: false,
      drift: [{ name: 'app.bin', problem: 'modified' }],
    });
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'DRIFT', words: '1 file differs from the signed 2.0.0: app.bin (modified).' },
    });
  });

  it('names five drifted files and counts the rest', () => {
    const drift = Array.from({ length: 7 }, (_, i) => ({
      name: `f${i}`,
      problem: 'missing' as const,
    }));
    const answer = verifyResult({ version: null, ok: false, drift });
    if (answer.ok) throw new Error('expected a refusal');
    expect(answer.error.message).toBe('7 files differ from the installed set');
    expect(answer.error.words).toContain('f4 (missing), and 2 more.');
    expect(answer.error.words).not.toContain('f5');
  });
});
