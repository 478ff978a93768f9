/**
 * The set-up step of `npm test` (scripts/test-setup.mjs): which Chromium and nginx it finds,
 * when it installs them itself (root on Debian) and the one message it stops with otherwise.
 * The machine is a fake probe: a set of executable paths, an os-release and a PATH.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  DENY_SERVICES,
  gatherFacts,
  planSetup,
  POLICY_RC_D,
  runSetup,
} from '#scripts/test-setup.mjs';
import type { Probe } from '#scripts/test-tools.mjs';

const PW_CHROME = '/home/dev/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome';
const DEBIAN_12 = 'ID=debian\nVERSION_ID="12"\n';
const DEBIAN_13 = 'ID=debian\nVERSION_ID="13"\n';
const UBUNTU = 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n';

interface Machine {
  platform?: string;
  root?: boolean;
  files?: string[];
  osRelease?: string;
  env?: Record<string, string>;
  playwright?: string;
}

function probe(machine: Machine): Probe & { files: Set<string> } {
  const files = new Set(machine.files ?? []);
  return {
    files,
    platform: machine.platform ?? 'linux',
    env: { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin', ...machine.env },
    isRoot: machine.root ?? false,
    isExecutable: (path) => files.has(path),
    playwrightChromium: () => machine.playwright ?? PW_CHROME,
    readText: (path) => (path === '/etc/os-release' ? machine.osRelease : undefined),
  };
}

const plan = (machine: Machine) => planSetup(gatherFacts(probe(machine)));
const APT = '/usr/bin/apt-get';
const SUDO = '/usr/bin/sudo';

describe('npm test set-up: Chromium', () => {
  it("present: uses Debian's /usr/bin/chromium", () => {
    const files = ['/usr/bin/chromium', '/usr/sbin/nginx', APT];
    expect(plan({ files, osRelease: DEBIAN_12 })).toEqual({
      kind: 'ready',
      chromium: '/usr/bin/chromium',
      nginx: '/usr/sbin/nginx',
    });
  });

  it('present: uses a Playwright-managed Chromium when there is no Debian one', () => {
    const files = [PW_CHROME, '/usr/sbin/nginx'];
    expect(plan({ platform: 'darwin', files })).toMatchObject({
      kind: 'ready',
      chromium: PW_CHROME,
    });
  });

  it('present: CHROMIUM_PATH wins over both', () => {
    const files = ['/usr/bin/chromium', '/opt/chrome/chrome', '/usr/sbin/nginx'];
    const env = { CHROMIUM_PATH: '/opt/chrome/chrome' };
    expect(plan({ files, env })).toMatchObject({ kind: 'ready', chromium: '/opt/chrome/chrome' });
  });

  it('absent and installable (root on Debian): installs the chromium package with apt-get', () => {
    const files = ['/usr/sbin/nginx', APT];
    expect(plan({ root: true, files, osRelease: DEBIAN_12 })).toEqual({
      kind: 'install',
      packages: ['chromium'],
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium'],
      ],
    });
  });

  it('absent and not installable (Debian, not root): stops naming the sudo apt-get command', () => {
    const files = ['/usr/sbin/nginx', APT, SUDO];
    const result = plan({ files, osRelease: DEBIAN_12 });
    expect(result).toEqual({
      kind: 'stop',
      message: [
        "npm test: Chromium (Playwright's browser) is not installed.",
        'Run this, then `npm test` again:',
        '',
        '  sudo apt-get update && sudo apt-get install -y chromium',
        '',
        'Or point CHROMIUM_PATH at a binary you already have.',
      ].join('\n'),
    });
  });

  it("absent and not installable (macOS): stops naming Playwright's download", () => {
    const files = ['/usr/local/bin/nginx', '/usr/local/bin/brew'];
    const result = plan({ platform: 'darwin', files, playwright: '/nowhere/chrome' });
    expect(result.kind).toBe('stop');
    expect(result.kind === 'stop' && result.message).toContain(
      '  npx playwright install chromium\n',
    );
  });

  it('absent on Ubuntu, even as root: Playwright, never the snap shim', () => {
    const files = ['/usr/sbin/nginx', APT];
    const result = plan({ root: true, files, osRelease: UBUNTU, playwright: '/nowhere/chrome' });
    expect(result.kind).toBe('stop');
    expect(result.kind === 'stop' && result.message).toContain('npx playwright install chromium');
    expect(result.kind === 'stop' && result.message).not.toContain('apt-get');
  });

  it('a CHROMIUM_PATH that is not executable stops and names the variable', () => {
    const files = ['/usr/bin/chromium', '/usr/sbin/nginx'];
    expect(plan({ files, env: { CHROMIUM_PATH: '/opt/typo' } })).toEqual({
      kind: 'stop',
      message: 'npm test: CHROMIUM_PATH=/opt/typo is not an executable file: fix or unset it.',
    });
  });
});

describe('npm test set-up: nginx', () => {
  it("present: uses Debian's /usr/sbin/nginx", () => {
    const files = ['/usr/bin/chromium', '/usr/sbin/nginx'];
    expect(plan({ files })).toMatchObject({ kind: 'ready', nginx: '/usr/sbin/nginx' });
  });

  it('present: finds nginx on PATH (Homebrew)', () => {
    const files = [PW_CHROME, '/opt/homebrew/bin/nginx'];
    const env = { PATH: '/opt/homebrew/bin:/usr/bin' };
    expect(plan({ platform: 'darwin', files, env })).toMatchObject({
      kind: 'ready',
      nginx: '/opt/homebrew/bin/nginx',
    });
  });

  it('absent and installable (root on Debian 12): installs nginx-light', () => {
    const files = ['/usr/bin/chromium', APT];
    expect(plan({ root: true, files, osRelease: DEBIAN_12 })).toMatchObject({
      kind: 'install',
      packages: ['nginx-light'],
    });
  });

  it('absent and installable (root on Debian 13, no nginx-light): installs nginx', () => {
    const files = ['/usr/bin/chromium', APT];
    expect(plan({ root: true, files, osRelease: DEBIAN_13 })).toMatchObject({
      kind: 'install',
      packages: ['nginx'],
    });
  });

  it('absent and not installable (macOS with Homebrew): stops naming brew install nginx', () => {
    const files = [PW_CHROME, '/usr/local/bin/brew'];
    expect(plan({ platform: 'darwin', files })).toEqual({
      kind: 'stop',
      message: [
        'npm test: nginx (the static-artifact-host tests) is not installed.',
        'Run this, then `npm test` again:',
        '',
        '  brew install nginx',
        '',
        'Or point NGINX_PATH at a binary you already have.',
      ].join('\n'),
    });
  });

  it('absent with no known package manager: says how, without inventing a command', () => {
    const files = [PW_CHROME];
    const result = plan({ files, osRelease: 'ID=gentoo\n' });
    expect(result).toEqual({
      kind: 'stop',
      message: [
        'npm test: nginx (the static-artifact-host tests) is not installed.',
        "Install nginx with your system's package manager so that `nginx` is on PATH, then `npm test` again.",
        'Or point NGINX_PATH at a binary you already have.',
      ].join('\n'),
    });
  });
});

describe('npm test set-up: both missing', () => {
  it('root on Debian: one apt-get install of both', () => {
    expect(plan({ root: true, files: [APT], osRelease: DEBIAN_12 })).toMatchObject({
      kind: 'install',
      packages: ['chromium', 'nginx-light'],
    });
  });

  it('not root on Debian: one message with one command for both', () => {
    const result = plan({ files: [APT, SUDO], osRelease: DEBIAN_12 });
    expect(result).toEqual({
      kind: 'stop',
      message: [
        "npm test: Chromium (Playwright's browser) and nginx (the static-artifact-host tests) are not installed.",
        'Run this, then `npm test` again:',
        '',
        '  sudo apt-get update && sudo apt-get install -y chromium nginx-light',
        '',
        'Or point CHROMIUM_PATH / NGINX_PATH at a binary you already have.',
      ].join('\n'),
    });
  });

  it('root on Ubuntu: stops at once, installing nothing, with the whole command', () => {
    const result = plan({ root: true, files: [APT], osRelease: UBUNTU, playwright: '/no' });
    expect(result.kind === 'stop' && result.message).toContain(
      '  apt-get update && apt-get install -y nginx && npx playwright install chromium\n',
    );
  });
});

describe('runSetup carries the plan out', () => {
  const quiet = () => {
    const lines: string[] = [];
    return { lines, log: { error: (line: string) => void lines.push(line) } };
  };
  /** A fake of the one file the set-up writes, recording what happened to it. */
  const fakeFiles = (present = false) => {
    const events: string[] = [];
    let there = present;
    return {
      events,
      files: {
        exists: () => there,
        write: (path: string, text: string) => {
          there = true;
          events.push(`write ${path} ${text === DENY_SERVICES ? 'deny' : text}`);
        },
        remove: (path: string) => {
          there = false;
          events.push(`remove ${path}`);
        },
      },
    };
  };

  it('installs as root on Debian, then finds both and returns 0', () => {
    const machine = probe({ root: true, files: [APT], osRelease: DEBIAN_12, playwright: '/no' });
    const ran: string[] = [];
    const { lines, log } = quiet();
    const { events, files } = fakeFiles();
    const run = (command: string, args: readonly string[], options: { stdio: unknown }) => {
      ran.push([command, ...args].join(' '));
      events.push(`run ${args[0] ?? ''}`);
      expect(options.stdio).toEqual(['ignore', 'pipe', 'pipe']);
      if (args[0] === 'install')
        ['/usr/bin/chromium', '/usr/sbin/nginx'].forEach((f) => machine.files.add(f));
      return { status: 0, stdout: 'Setting up nginx-light ...', stderr: 'debconf: delaying' };
    };
    expect(runSetup({ probe: machine, run, log, files })).toBe(0);
    expect(ran).toEqual([
      'apt-get update -qq',
      'apt-get install -y -qq --no-install-recommends chromium nginx-light',
    ]);
    expect(lines).toEqual(['npm test: installing chromium nginx-light with apt-get (once)']);
    // No service may start while it installs, and the policy goes once it is done.
    expect(events).toEqual([
      `write ${POLICY_RC_D} deny`,
      'run update',
      'run install',
      `remove ${POLICY_RC_D}`,
    ]);
    expect(DENY_SERVICES).toMatch(/^#!\/bin\/sh\n[^]*\nexit 101\n$/);
  });

  it('leaves a policy-rc.d that was there before alone', () => {
    const machine = probe({ root: true, files: [APT], osRelease: DEBIAN_12, playwright: '/no' });
    const { log } = quiet();
    const { events, files } = fakeFiles(true);
    const run = (_command: string, args: readonly string[]) => {
      if (args[0] === 'install')
        ['/usr/bin/chromium', '/usr/sbin/nginx'].forEach((f) => machine.files.add(f));
      return { status: 0 };
    };
    expect(runSetup({ probe: machine, run, log, files })).toBe(0);
    expect(events).toEqual([]);
  });

  it('a failing apt-get stops with the command that failed', () => {
    const machine = probe({
      root: true,
      files: [APT, '/usr/sbin/nginx'],
      osRelease: DEBIAN_12,
      playwright: '/no',
    });
    const { lines, log } = quiet();
    const { events, files } = fakeFiles();
    const run = (_command: string, args: readonly string[]) => ({
      status: args[0] === 'update' ? 100 : 0,
      stdout: '',
      stderr: 'E: Could not get lock /var/lib/apt/lists/lock',
    });
    expect(runSetup({ probe: machine, run, log, files })).toBe(1);
    // Its output, kept back while it ran, is shown now that it failed.
    expect(lines).toContain('E: Could not get lock /var/lib/apt/lists/lock');
    expect(events.at(-1)).toBe(`remove ${POLICY_RC_D}`);
    expect(lines.at(-1)).toBe(
      'npm test: `apt-get update -qq` failed (exit 100); run it yourself to see why, then `npm test` again.',
    );
  });

  it('stops with the message and installs nothing when it cannot install', () => {
    const machine = probe({ files: [APT, SUDO], osRelease: DEBIAN_12, playwright: '/no' });
    const { lines, log } = quiet();
    const run = () => {
      throw new Error('must not run anything');
    };
    expect(runSetup({ probe: machine, run, log })).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'sudo apt-get update && sudo apt-get install -y chromium nginx-light',
    );
  });

  it('returns 0 and prints nothing when both are there', () => {
    const machine = probe({ files: ['/usr/bin/chromium', '/usr/sbin/nginx'] });
    const { lines, log } = quiet();
    expect(runSetup({ probe: machine, log })).toBe(0);
    expect(lines).toEqual([]);
  });
});

describe('the README command and CI run the set-up first', () => {
  it('`npm test` starts with the set-up step and .ci/run calls `npm test`', async () => {
    const root = new URL('../../../', import.meta.url);
    const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['test']).toBe('node scripts/run-tests.mjs');
    const { PHASES } = await import('#scripts/run-tests.mjs');
    expect(PHASES[0]?.argv.slice(1)).toEqual(['scripts/test-setup.mjs']);
    const ci = await readFile(new URL('.ci/run', root), 'utf8');
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).not.toContain('apt-get install');
  });
});
