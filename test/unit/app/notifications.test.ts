import { describe, expect, it } from 'vitest';
import type { UpdateEvent } from '#core/events.js';
import { createNotifier, MAX_REMEMBERED_REFUSALS } from '#app/notifications.js';

const refused = (code: string, message = 'raw core message'): UpdateEvent => ({
  type: 'error',
  code: code as 'SIGNATURE_INVALID',
  message,
  atMs: 1,
});

describe('notifications', () => {
  it('tells one notification per refused version, however often the check retries', () => {
    const notifier = createNotifier();
    const first = notifier.noticeFor(refused('HASH_MISMATCH'), '2.0.0');
    expect(first?.title).toBe('Update 2.0.0 refused for your safety');
    // The scheduler's retries meet the same refusal: silence.
    for (let i = 0; i < 5; i += 1) {
      expect(notifier.noticeFor(refused('HASH_MISMATCH'), '2.0.0')).toBeNull();
    }
    // Another version is news.
    expect(notifier.noticeFor(refused('HASH_MISMATCH'), '2.0.1')).not.toBeNull();
  });

  it('uses the window’s plain words and advice, never the core’s raw message', () => {
    const notice = createNotifier().noticeFor(refused('SIGNATURE_INVALID', 'sig bytes bad'), null);
    expect(notice?.title).toBe('Update refused for your safety');
    expect(notice?.body).toMatch(
      /^The update was refused: its signature does not match the pinned key\. Nothing was installed.* \(SIGNATURE_INVALID\)$/,
    );
    expect(notice?.body).not.toContain('sig bytes bad');
  });

  it('without a version, keys the refusal by code and message', () => {
    const notifier = createNotifier();
    expect(notifier.noticeFor(refused('ROLLBACK', 'offered 1.0.0'), null)).not.toBeNull();
    expect(notifier.noticeFor(refused('ROLLBACK', 'offered 1.0.0'), null)).toBeNull();
    expect(notifier.noticeFor(refused('ROLLBACK', 'offered 0.9.0'), null)).not.toBeNull();
  });

  it('tells the same refusal again after a run succeeded in between', () => {
    const notifier = createNotifier();
    expect(notifier.noticeFor(refused('UNAUTHORIZED'), null)).not.toBeNull();
    notifier.noticeFor({ type: 'up-to-date', version: '1.0.0', atMs: 2 }, null);
    expect(notifier.noticeFor(refused('UNAUTHORIZED'), null)).not.toBeNull();
  });

  it('stays silent on network weather and on a cancel', () => {
    const notifier = createNotifier();
    for (const code of ['NETWORK', 'STALLED', 'RATE_LIMITED', 'ABORTED', 'LOCKED', 'HTTP_STATUS']) {
      expect(notifier.noticeFor(refused(code), null)).toBeNull();
    }
  });

  it('announces an applied update with both versions', () => {
    const notice = createNotifier().noticeFor(
      { type: 'applied', version: '1.1.0', previousVersion: '1.0.0', atMs: 3 },
      '1.1.0',
    );
    expect(notice).toEqual({ title: 'Update installed', body: 'Updated from 1.0.0 to 1.1.0.' });
  });

  it('remembers a bounded number of refusals', () => {
    const notifier = createNotifier();
    for (let i = 0; i < MAX_REMEMBERED_REFUSALS * 3; i += 1) {
      notifier.noticeFor(refused('ROLLBACK', `m${i}`), null);
    }
    // Still working, and memory did not grow past the bound (the oldest were forgotten).
    expect(notifier.noticeFor(refused('ROLLBACK', 'm0'), null)).not.toBeNull();
  });
});
