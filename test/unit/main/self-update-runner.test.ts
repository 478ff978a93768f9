import { describe, expect, it } from 'vitest';
import { selfUpdateNotice } from '#main/self-update-runner.js';

describe('self-update notices', () => {
  it('tells a .deb user where the verified package is and the command', () => {
    const notice = selfUpdateNotice({
      kind: 'handed-over',
      version: '0.2.0',
      result: { kind: 'manual', path: '/u/v.deb', command: "sudo apt install '/u/v.deb'" },
    });
    expect(notice?.body).toBe(
      "The verified package is at /u/v.deb. Install it with: sudo apt install '/u/v.deb'",
    );
  });

  it('says a failed hand-over left this version running', () => {
    const notice = selfUpdateNotice({
      kind: 'failed',
      version: '0.2.0',
      code: 'TAMPERED',
      message: 'app/linux-x64/x does not match the signed manifest (modified)',
    });
    expect(notice?.title).toBe('Verified Updater 0.2.0 was not installed');
    expect(notice?.body).toContain('(TAMPERED). This version keeps running.');
  });

  it('stays quiet when restarting, up to date, off or declined', () => {
    expect(
      selfUpdateNotice({ kind: 'handed-over', version: '1', result: { kind: 'restarting' } }),
    ).toBeNull();
    expect(selfUpdateNotice({ kind: 'up-to-date' })).toBeNull();
    expect(selfUpdateNotice({ kind: 'off' })).toBeNull();
    expect(selfUpdateNotice({ kind: 'declined', version: '1' })).toBeNull();
  });
});
