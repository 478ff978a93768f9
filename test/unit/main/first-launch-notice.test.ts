import { describe, expect, it } from 'vitest';
import { firstLaunchNotice, tellOnce } from '#main/first-launch-notice.js';

describe('first-launch notice', () => {
  it('says where the app lives on each desktop', () => {
    expect(firstLaunchNotice('darwin', true).body).toContain('menu bar');
    expect(firstLaunchNotice('win32', true).body).toContain('notification area');
    expect(firstLaunchNotice('linux', true).body).toContain('tray');
    expect(firstLaunchNotice('linux', false).body).toContain('no tray');
  });

  it('is told once: the marker keeps a second launch quiet', async () => {
    let marked = false;
    const shown: string[] = [];
    const marker = {
      exists: () => Promise.resolve(marked),
      write: () => {
        marked = true;
        return Promise.resolve();
      },
    };
    expect(await tellOnce(marker, () => shown.push('notice'))).toBe(true);
    expect(await tellOnce(marker, () => shown.push('notice'))).toBe(false);
    expect(shown).toEqual(['notice']);
  });

  it('writes the marker only after showing', async () => {
    const order: string[] = [];
    await tellOnce(
      {
        exists: () => Promise.resolve(false),
        write: () => {
          order.push('write');
          return Promise.resolve();
        },
      },
      () => order.push('show'),
    );
    expect(order).toEqual(['show', 'write']);
  });
});
