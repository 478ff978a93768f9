/** The hand-over of each platform, with the platform's operations injected. */
import { describe, expect, it } from 'vitest';
import { copyPathFor, handOver, shellQuote, type HandOverOps } from '#app/self-update/hand-over.js';

function fakeOps(fail: Partial<Record<keyof HandOverOps, number>> = {}) {
  const calls: string[] = [];
  const failing = { ...fail };
  const step = (name: keyof HandOverOps, text: string): Promise<void> => {
    calls.push(text);
    const left = failing[name];
    if (left !== undefined) {
      if (left <= 1) delete failing[name];
      else failing[name] = left - 1;
      return Promise.reject(new Error(`${name} failed`));
    }
    return Promise.resolve();
  };
  const ops: HandOverOps = {
    stat: (path) => step('stat', `stat ${path}`).then(() => ({ mode: 0o100755 })),
    chmod: (path, mode) => step('chmod', `chmod ${path} ${mode.toString(8)}`),
    rename: (from, to) => step('rename', `rename ${from} -> ${to}`),
    rm: (path) => step('rm', `rm ${path}`),
    syncDir: (dir) => step('syncDir', `sync ${dir}`),
    readdir: (dir) => step('readdir', `readdir ${dir}`).then(() => ['Verified Updater.app']),
    extractZip: (zip, into) => step('extractZip', `extract ${zip} -> ${into}`),
    spawnDetached: (file, args) => step('spawnDetached', `spawn ${[file, ...args].join(' ')}`),
    quit: () => {
      calls.push('quit');
    },
  };
  return { ops, calls };
}

describe('AppImage', () => {
  const input = {
    kind: 'appimage' as const,
    installPath: '/home/u/Apps/V.AppImage',
    copyPath: copyPathFor('appimage', '/home/u/Apps/V.AppImage', '/work', 'f', 'u1'),
    unique: 'u1',
  };

  it('puts the copy beside the file, keeps its mode, renames it over, syncs, relaunches', async () => {
    expect(input.copyPath).toBe('/home/u/Apps/.V.AppImage.u1');
    const { ops, calls } = fakeOps();
    expect(await handOver(input, ops)).toEqual({ kind: 'restarting' });
    expect(calls).toEqual([
      'stat /home/u/Apps/V.AppImage',
      'chmod /home/u/Apps/.V.AppImage.u1 755',
      'rename /home/u/Apps/.V.AppImage.u1 -> /home/u/Apps/V.AppImage',
      'sync /home/u/Apps',
      'spawn /home/u/Apps/V.AppImage',
      'quit',
    ]);
  });

  it('keeps the old file when the rename fails, and removes the copy', async () => {
    const { ops, calls } = fakeOps({ rename: 1 });
    await expect(handOver(input, ops)).rejects.toMatchObject({ code: 'HAND_OVER_FAILED' });
    expect(calls.at(-1)).toBe('rm /home/u/Apps/.V.AppImage.u1');
    expect(calls).not.toContain('quit');
  });

  it('keeps running when the relaunch fails: the new version starts next time', async () => {
    const { ops, calls } = fakeOps({ spawnDetached: 1 });
    expect((await handOver(input, ops)).kind).toBe('installed-on-restart');
    expect(calls).not.toContain('quit');
  });
});

describe('Windows (NSIS, per user)', () => {
  const input = {
    kind: 'nsis' as const,
    installPath: 'C:/P/v',
    copyPath: copyPathFor('nsis', 'C:/P/v', '/work', 'setup.exe', 'u2'),
    unique: 'u2',
  };

  it('runs the verified installer silently and quits', async () => {
    const { ops, calls } = fakeOps();
    expect(await handOver(input, ops)).toEqual({ kind: 'restarting' });
    expect(calls).toEqual([`spawn ${input.copyPath} /S`, 'quit']);
  });

  it('stays when the installer cannot start', async () => {
    const { ops, calls } = fakeOps({ spawnDetached: 1 });
    await expect(handOver(input, ops)).rejects.toMatchObject({ code: 'HAND_OVER_FAILED' });
    expect(calls).not.toContain('quit');
  });
});

describe('macOS (.app from a verified zip)', () => {
  const input = {
    kind: 'mac-zip' as const,
    installPath: '/Applications/Verified Updater.app',
    copyPath: '/work/u3-v.zip',
    unique: 'u3',
  };

  it('extracts beside the bundle and swaps it by two renames, then relaunches', async () => {
    const { ops, calls } = fakeOps();
    expect(await handOver(input, ops)).toEqual({ kind: 'restarting' });
    expect(calls).toEqual([
      'extract /work/u3-v.zip -> /Applications/.u3',
      'readdir /Applications/.u3',
      'rename /Applications/Verified Updater.app -> /Applications/.Verified Updater.app.u3.old',
      'rename /Applications/.u3/Verified Updater.app -> /Applications/Verified Updater.app',
      'rm /work/u3-v.zip',
      'rm /Applications/.u3',
      'rm /Applications/.Verified Updater.app.u3.old',
      'sync /Applications',
      'spawn /usr/bin/open -n /Applications/Verified Updater.app',
      'quit',
    ]);
  });

  it('puts the old bundle back when the new one cannot be moved in', async () => {
    // First rename (old -> backup) works, second (new -> place) fails, third restores.
    const { ops, calls } = fakeOps();
    let renames = 0;
    const failingSecond: HandOverOps = {
      ...ops,
      rename: (from, to) => {
        renames += 1;
        if (renames === 2) return Promise.reject(new Error('EXDEV'));
        calls.push(`rename ${from} -> ${to}`);
        return Promise.resolve();
      },
    };
    await expect(handOver(input, failingSecond)).rejects.toMatchObject({
      code: 'HAND_OVER_FAILED',
    });
    expect(calls).toContain(
      'rename /Applications/.Verified Updater.app.u3.old -> /Applications/Verified Updater.app',
    );
    expect(calls).not.toContain('quit');
  });
});

describe('.deb', () => {
  it('tells where the verified package is and the command, running nothing', async () => {
    const { ops, calls } = fakeOps();
    const result = await handOver(
      { kind: 'deb', installPath: '/opt/v/v', copyPath: "/home/u/it's.deb", unique: 'u4' },
      ops,
    );
    expect(result).toEqual({
      kind: 'manual',
      path: "/home/u/it's.deb",
      command: `sudo apt install ${shellQuote("/home/u/it's.deb")}`,
    });
    expect(shellQuote("/home/u/it's.deb")).toBe(`'/home/u/it'\\''s.deb'`);
    expect(calls).toEqual([]);
  });
});
