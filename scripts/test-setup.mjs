// The set-up step of `npm test` (README "Quick start"; .ci/run calls the same `npm test`): makes
// sure a Chromium and nginx are there. Root on Debian installs what is missing with apt-get;
// anywhere else it stops at once with one message naming the exact command to run, instead of
// letting Playwright and the nginx suites fail one by one. Downloads (Playwright's Chromium)
// are never started behind the user's back.
// `planSetup(facts)` holds every decision and is pure (test/unit/scripts/test-setup.test.ts);
// `runSetup()` gathers the facts from the machine and carries the plan out.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { findChromium, findNginx, realProbe, which } from './test-tools.mjs';

const PURPOSE = {
  chromium: "Chromium (Playwright's browser)",
  nginx: 'nginx (the static-artifact-host tests)',
};
const OVERRIDE = { chromium: 'CHROMIUM_PATH', nginx: 'NGINX_PATH' };
// Exact commands for nginx on systems without apt-get (root or not decides the sudo).
const NGINX_BY_MANAGER = [
  ['brew', 'brew install nginx', false],
  ['dnf', 'dnf install -y nginx', true],
  ['zypper', 'zypper install -y nginx', true],
  ['pacman', 'pacman -S --noconfirm nginx', true],
  ['apk', 'apk add nginx', true],
];

function osRelease(text) {
  const fields = new Map();
  for (const line of (text ?? '').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) fields.set(match[1], match[2].replace(/^"|"$/g, ''));
  }
  const major = Number.parseInt(fields.get('VERSION_ID') ?? '', 10);
  return {
    id: fields.get('ID') ?? '',
    like: (fields.get('ID_LIKE') ?? '').split(' ').filter((word) => word !== ''),
    versionMajor: Number.isNaN(major) ? undefined : major,
  };
}

/** Everything the plan depends on, read from a probe (the real machine by default). */
export function gatherFacts(probe = realProbe()) {
  const managers = ['apt-get', 'sudo', ...NGINX_BY_MANAGER.map(([name]) => name)].filter(
    (name) => which(name, probe) !== undefined,
  );
  return {
    platform: probe.platform,
    isRoot: probe.isRoot,
    os: osRelease(probe.readText('/etc/os-release')),
    managers,
    chromium: findChromium(probe),
    nginx: findNginx(probe),
  };
}

/** nginx-light is Debian's small build up to Debian 12; later releases ship only "nginx". */
function debianNginxPackage(os) {
  return os.id === 'debian' && os.versionMajor !== undefined && os.versionMajor <= 12
    ? 'nginx-light'
    : 'nginx';
}

/** How one missing tool gets installed: by apt-get (a package) or by a command, or neither. */
function route(tool, facts) {
  const apt = facts.managers.includes('apt-get');
  if (tool === 'chromium') {
    // Only Debian's "chromium" is a real package; Ubuntu's is a snap shim that fails in
    // containers, and other systems get Playwright's own build.
    if (apt && facts.os.id === 'debian') return { apt: 'chromium' };
    return { command: 'npx playwright install chromium' };
  }
  if (apt) return { apt: debianNginxPackage(facts.os) };
  for (const [manager, command, needsRoot] of NGINX_BY_MANAGER) {
    if (facts.managers.includes(manager)) {
      return { command: needsRoot && !facts.isRoot ? `sudo ${command}` : command };
    }
  }
  return {};
}

function aptCommand(packages, facts) {
  const sudo = facts.isRoot ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(' ')}`;
}

/** The one message printed when `npm test` cannot set itself up. */
export function stopMessage(missing, commands, unroutable = []) {
  const what = missing.map((tool) => PURPOSE[tool]).join(' and ');
  const verb = missing.length === 1 ? 'is' : 'are';
  const lines = [`npm test: ${what} ${verb} not installed.`];
  if (commands.length > 0) {
    lines.push('Run this, then `npm test` again:', '', `  ${commands.join(' && ')}`, '');
  }
  for (const tool of unroutable) {
    lines.push(
      `Install ${tool} with your system's package manager so that \`${tool}\` is on PATH, then \`npm test\` again.`,
    );
  }
  const overrides = missing.map((tool) => OVERRIDE[tool]).join(' / ');
  lines.push(`Or point ${overrides} at a binary you already have.`);
  return lines.join('\n');
}

/**
 * Decides what the set-up step does.
 * @returns {{kind:'ready', chromium:string, nginx:string}
 *   | {kind:'install', packages:string[], commands:string[][]}
 *   | {kind:'stop', message:string}}
 */
export function planSetup(facts) {
  for (const tool of ['chromium', 'nginx']) {
    const found = facts[tool];
    if (found?.broken) {
      return {
        kind: 'stop',
        message: `npm test: ${OVERRIDE[tool]}=${found.path} is not an executable file: fix or unset it.`,
      };
    }
  }
  const missing = ['chromium', 'nginx'].filter((tool) => facts[tool] === undefined);
  if (missing.length === 0) {
    return { kind: 'ready', chromium: facts.chromium.path, nginx: facts.nginx.path };
  }
  const routes = missing.map((tool) => route(tool, facts));
  const packages = routes.flatMap((r) => (r.apt === undefined ? [] : [r.apt]));
  if (facts.isRoot && packages.length === missing.length) {
    return {
      kind: 'install',
      packages,
      commands: [
        ['apt-get', 'update', '-qq'],
        ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages],
      ],
    };
  }
  const commands = [
    ...(packages.length > 0 ? [aptCommand(packages, facts)] : []),
    ...routes.flatMap((r) => (r.command === undefined ? [] : [r.command])),
  ];
  const unroutable = missing.filter(
    (_, i) => routes[i]?.apt === undefined && routes[i]?.command === undefined,
  );
  return { kind: 'stop', message: stopMessage(missing, commands, unroutable) };
}

/**
 * Debian's invoke-rc.d asks this file whether a package may start its service (exit 101: no;
 * man invoke-rc.d, "POLICY-RC.D"). During our install it says no, so nginx's package does not
 * start a system web server on a test machine; removed afterwards unless it was there already.
 */
export const POLICY_RC_D = '/usr/sbin/policy-rc.d';
export const DENY_SERVICES =
  '#!/bin/sh\n# scripts/test-setup.mjs, during its apt-get install: no service starts.\nexit 101\n';

const realFiles = {
  exists: (path) => existsSync(path),
  write: (path, text) => writeFileSync(path, text, { mode: 0o755 }),
  remove: (path) => rmSync(path, { force: true }),
};

/** The last lines of a command's output, shown only when it failed. */
function tail(result) {
  const text = `${result.stdout ?? ''}${result.stderr ?? ''}`.trimEnd();
  return text.split('\n').slice(-30).join('\n');
}

/**
 * Runs the set-up on this machine. Returns the exit code: 0 when both tools are there (after
 * installing them if it could), 1 after printing the one message on stderr.
 */
export function runSetup({
  probe = realProbe(),
  run = spawnSync,
  log = console,
  files = realFiles,
} = {}) {
  let plan = planSetup(gatherFacts(probe));
  if (plan.kind === 'install') {
    log.error(`npm test: installing ${plan.packages.join(' ')} with apt-get (once)`);
    const ownPolicy = !files.exists(POLICY_RC_D);
    if (ownPolicy) files.write(POLICY_RC_D, DENY_SERVICES);
    try {
      for (const argv of plan.commands) {
        const [command = '', ...args] = argv;
        // Quiet unless it fails: apt's progress and debconf's notes are kept, shown on failure.
        const result = run(command, args, {
          stdio: ['ignore', 'pipe', 'pipe'],
          encoding: 'utf8',
          env: { ...probe.env, DEBIAN_FRONTEND: 'noninteractive' },
        });
        if (result.status !== 0) {
          const why = result.error ? result.error.message : `exit ${String(result.status)}`;
          const output = tail(result);
          if (output !== '') log.error(output);
          log.error(
            `npm test: \`${argv.join(' ')}\` failed (${why}); run it yourself to see why, then \`npm test\` again.`,
          );
          return 1;
        }
      }
    } finally {
      if (ownPolicy) files.remove(POLICY_RC_D);
    }
    plan = planSetup(gatherFacts(probe));
    if (plan.kind === 'install') {
      log.error(
        `npm test: apt-get installed ${plan.packages.join(' ')} but they are still not found; ` +
          `set ${plan.packages.map((p) => (p === 'chromium' ? 'CHROMIUM_PATH' : 'NGINX_PATH')).join(' / ')} to where they are.`,
      );
      return 1;
    }
  }
  if (plan.kind === 'stop') {
    log.error(plan.message);
    return 1;
  }
  return 0;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  process.exitCode = runSetup();
}
