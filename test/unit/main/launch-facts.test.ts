import { describe, expect, it } from 'vitest';
import { readLaunchPlan, type LaunchFactsDeps } from '#main/launch-facts.js';

function deps(over: Partial<LaunchFactsDeps>): LaunchFactsDeps & { probes: number } {
  const d = {
    probes: 0,
    platform: 'linux' as NodeJS.Platform,
    argv: ['/app'],
    xdgCurrentDesktop: undefined as string | undefined,
    wasOpenedAtLogin: () => true,
    run: () => {
      d.probes += 1;
      return Promise.resolve('boolean false');
    },
    ...over,
  };
  return d;
}

describe('launch facts', () => {
  it('probes the bus on GNOME and falls back to a normal window without a watcher', async () => {
    const d = deps({ xdgCurrentDesktop: 'GNOME' });
    expect(await readLaunchPlan(d)).toEqual({
      atLogin: false,
      windowStyle: 'normal',
      firstShow: 'show',
    });
    expect(d.probes).toBe(1);
  });

  it('does not probe elsewhere', async () => {
    const d = deps({ xdgCurrentDesktop: 'KDE' });
    expect((await readLaunchPlan(d)).windowStyle).toBe('tray');
    expect(d.probes).toBe(0);
  });

  it('asks wasOpenedAtLogin on macOS only', async () => {
    expect((await readLaunchPlan(deps({ platform: 'darwin' }))).firstShow).toBe('stay-hidden');
    expect((await readLaunchPlan(deps({ platform: 'win32' }))).firstShow).toBe('show');
    expect((await readLaunchPlan(deps({ argv: ['/app', '--hidden'] }))).firstShow).toBe(
      'stay-hidden',
    );
  });
});
