import { describe, expect, it } from 'vitest';
import { judgeSettings } from '#app/settings/settings-form.js';
import type { SettingsInput } from '#preload/ipc-contract.js';
import { roleKeys, signedRoot } from '#test/tuf-metadata-kit.js';

const KEY = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);
const base: SettingsInput = {
  registryUrl: 'https://updates.example.com',
  pinnedKeys: [KEY],
  machineKey: 'mk_0123456789',
  checkIntervalMinutes: 60,
  paused: false,
  startAtLogin: false,
  requireNonce: false,
  updatePolicy: 'auto',
  selfUpdate: 'ask',
  minimiseToBackground: true,
};
const context = { machineKeyKept: false, startAtLoginAvailable: true };

function problems(input: Partial<SettingsInput>, ctx = context): Record<string, string> {
  const judged = judgeSettings({ ...base, ...input }, ctx);
  return judged.ok ? {} : Object.fromEntries(judged.problems.map((p) => [p.field, p.words]));
}

describe('settings form', () => {
  it('accepts a registry with its key and machine key, normalised', () => {
    const judged = judgeSettings(
      {
        ...base,
        registryUrl: ' https://updates.example.com ',
        pinnedKeys: ['', KEY.toUpperCase(), ' '],
      },
      context,
    );
    expect(judged).toEqual({
      ok: true,
      accepted: {
        baseUrl: 'https://updates.example.com',
        pinnedKeys: [KEY],
        machineKey: 'mk_0123456789',
        forgetTrustedRoot: false,
        checkIntervalMs: 3_600_000,
        paused: false,
        startAtLogin: false,
        requireNonce: false,
        updatePolicy: 'auto',
        selfUpdate: 'ask',
        minimiseToBackground: true,
      },
    });
  });

  it('passes the update policy, self-update and background choices through', () => {
    const judged = judgeSettings(
      { ...base, updatePolicy: 'notify', selfUpdate: 'never', minimiseToBackground: false },
      context,
    );
    expect(judged).toMatchObject({
      ok: true,
      accepted: { updatePolicy: 'notify', selfUpdate: 'never', minimiseToBackground: false },
    });
  });

  it('passes the nonce choice through, for the demo registry too', () => {
    const judged = judgeSettings({ ...base, registryUrl: '', requireNonce: true }, context);
    expect(judged).toMatchObject({ ok: true, accepted: { baseUrl: '', requireNonce: true } });
  });

  it('an empty address is the demo registry: keys and machine key are neither needed nor kept', () => {
    const judged = judgeSettings(
      { ...base, registryUrl: '', pinnedKeys: ['junk'], machineKey: '' },
      context,
    );
    expect(judged).toMatchObject({
      ok: true,
      accepted: { baseUrl: '', pinnedKeys: [], machineKey: null },
    });
  });

  it('refuses an address that is not https (plain http only on this computer), in plain words', () => {
    expect(problems({ registryUrl: 'http://updates.example.com' })).toEqual({
      registryUrl: 'The address must start with https:// (plain http only on this computer).',
    });
    expect(problems({ registryUrl: 'not a url' })).toEqual({
      registryUrl: 'This is not a web address. It starts with https://.',
    });
    expect(problems({ registryUrl: 'http://127.0.0.1:8080' })).toEqual({});
  });

  it('refuses a registry without a pinned key, a malformed key and a repeated key', () => {
    expect(problems({ pinnedKeys: [] })).toEqual({
      pinnedKeys: 'Pin at least one public key: without one no update is trusted.',
    });
    expect(problems({ pinnedKeys: ['abc'] })).toEqual({
      pinnedKeys: 'A public key has 64 characters; this one has 3.',
    });
    expect(problems({ pinnedKeys: [KEY, OTHER, KEY] })).toEqual({
      pinnedKeys: 'Key 3 is listed twice.',
    });
  });

  it('asks for a machine key unless one is kept already; refuses spaces in it', () => {
    expect(problems({ machineKey: '' })).toEqual({
      machineKey: 'Enter the machine key your registry gave this computer.',
    });
    expect(problems({ machineKey: '' }, { ...context, machineKeyKept: true })).toEqual({});
    expect(
      judgeSettings({ ...base, machineKey: '' }, { ...context, machineKeyKept: true }),
    ).toMatchObject({
      ok: true,
      accepted: { machineKey: null },
    });
    expect(problems({ machineKey: 'two words' })).toEqual({
      machineKey: 'A machine key has no spaces and only letters, digits and punctuation.',
    });
  });

  it('bounds the interval: whole minutes, once a minute to once a week', () => {
    expect(problems({ checkIntervalMinutes: 0 })).toEqual({
      checkIntervalMinutes: 'Check at most once a minute: enter 1 or more.',
    });
    expect(problems({ checkIntervalMinutes: 1.5 })).toEqual({
      checkIntervalMinutes: 'Enter a whole number of minutes.',
    });
    expect(problems({ checkIntervalMinutes: 10_081 })).toEqual({
      checkIntervalMinutes: 'Check at least once a week: enter 10080 or fewer.',
    });
    expect(problems({ checkIntervalMinutes: 10_080 })).toEqual({});
  });

  it('refuses start at login where the app cannot start itself', () => {
    expect(problems({ startAtLogin: true }, { ...context, startAtLoginAvailable: false })).toEqual({
      startAtLogin: 'This window cannot start the app at login; the desktop app can.',
    });
  });

  it('reports every problem at once, one per field', () => {
    expect(
      Object.keys(
        problems({
          registryUrl: 'ftp://x',
          pinnedKeys: [],
          machineKey: '',
          checkIntervalMinutes: 0,
        }),
      ),
    ).toEqual(['registryUrl', 'pinnedKeys', 'machineKey', 'checkIntervalMinutes']);
  });
});

describe('settings form: the trusted root', () => {
  const root = new TextDecoder().decode(signedRoot(roleKeys(), 1, Date.UTC(2026, 10, 1)));

  it('accepts a self-signed root, and then needs no pinned key', () => {
    const judged = judgeSettings({ ...base, pinnedKeys: [''], trustedRoot: root }, context);
    expect(judged.ok).toBe(true);
    expect(judged.ok && judged.accepted.pinnedKeys).toEqual([]);
    expect(judged.ok && new TextDecoder().decode(judged.accepted.trustedRoot)).toBe(root);
  });

  it('needs no pinned key when a root is kept, and keeps it when the field is empty', () => {
    const judged = judgeSettings(
      { ...base, pinnedKeys: [], trustedRoot: '  ' },
      { ...context, trustedRootKept: true },
    );
    expect(judged.ok && judged.accepted.trustedRoot).toBeUndefined();
    expect(problems({ pinnedKeys: [] })).toHaveProperty('pinnedKeys');
  });

  it('refuses a bad root next to its field', () => {
    expect(problems({ trustedRoot: '{"signed":' })).toEqual({
      trustedRoot: expect.stringMatching(/^This is not a TUF root\.json/) as unknown,
    });
  });

  it('refuses a root without a registry address', () => {
    expect(
      problems({ registryUrl: '', pinnedKeys: [], machineKey: '', trustedRoot: root }),
    ).toEqual({
      trustedRoot: 'A trusted root belongs to a registry: enter the registry address too.',
    });
  });
});
