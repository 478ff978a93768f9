/**
 * The settings screen (docs/DESKTOP.md "Settings"): registry address, pinned keys, machine key,
 * check interval, pause and start at login, in place of the status and ranking cards. Save
 * sends the fields as they are; the app judges them and answers each problem in plain words,
 * shown next to its field (aria-invalid, aria-describedby) and in a summary that takes focus.
 * The machine key is never shown: the app says only whether one is kept, and where.
 */
import type {
  BridgeApi,
  FieldProblem,
  SelfUpdateChoice,
  SettingsField,
  SettingsInput,
  SettingsView,
  UpdatePolicy,
} from '#preload/ipc-contract.js';
import { setText } from './dom-text.js';

interface SettingsElements {
  readonly section: HTMLElement;
  readonly title: HTMLElement;
  readonly form: HTMLFormElement;
  readonly problems: HTMLElement;
  readonly problemList: HTMLElement;
  readonly registryUrl: HTMLInputElement;
  readonly pinnedKeys: HTMLTextAreaElement;
  readonly machineKey: HTMLInputElement;
  readonly machineKeyHint: HTMLElement;
  readonly trustedRoot: HTMLTextAreaElement;
  readonly trustedRootFile: HTMLInputElement;
  readonly trustedRootHint: HTMLElement;
  readonly forgetRootRow: HTMLElement;
  readonly forgetRoot: HTMLInputElement;
  readonly interval: HTMLInputElement;
  readonly paused: HTMLInputElement;
  readonly startAtLogin: HTMLInputElement;
  readonly startAtLoginHint: HTMLElement;
  readonly requireNonce: HTMLInputElement;
  readonly updatePolicy: HTMLSelectElement;
  readonly selfUpdate: HTMLSelectElement;
  readonly minimise: HTMLInputElement;
  readonly save: HTMLButtonElement;
  readonly back: HTMLButtonElement;
  readonly result: HTMLElement;
}

/** Each field's control and its error line. */
const FIELD_IDS: Readonly<Record<SettingsField, string>> = {
  registryUrl: 'registry-url',
  pinnedKeys: 'pinned-keys',
  machineKey: 'machine-key',
  trustedRoot: 'trusted-root',
  checkIntervalMinutes: 'check-interval',
  startAtLogin: 'start-at-login',
};

function find(doc: Document): SettingsElements {
  const get = <T extends HTMLElement>(id: string): T => {
    const element = doc.getElementById(id);
    if (element === null) throw new Error(`missing #${id}`);
    return element as T;
  };
  return {
    section: get('settings'),
    title: get('settings-title'),
    form: get<HTMLFormElement>('settings-form'),
    problems: get('settings-problems'),
    problemList: get('settings-problem-list'),
    registryUrl: get<HTMLInputElement>('registry-url'),
    pinnedKeys: get<HTMLTextAreaElement>('pinned-keys'),
    machineKey: get<HTMLInputElement>('machine-key'),
    machineKeyHint: get('machine-key-hint'),
    trustedRoot: get<HTMLTextAreaElement>('trusted-root'),
    trustedRootFile: get<HTMLInputElement>('trusted-root-file'),
    trustedRootHint: get('trusted-root-hint'),
    forgetRootRow: get('forget-trusted-root-row'),
    forgetRoot: get<HTMLInputElement>('forget-trusted-root'),
    interval: get<HTMLInputElement>('check-interval'),
    paused: get<HTMLInputElement>('settings-paused'),
    startAtLogin: get<HTMLInputElement>('start-at-login'),
    startAtLoginHint: get('start-at-login-hint'),
    requireNonce: get<HTMLInputElement>('require-nonce'),
    updatePolicy: get<HTMLSelectElement>('update-policy'),
    selfUpdate: get<HTMLSelectElement>('self-update'),
    minimise: get<HTMLInputElement>('minimise-to-background'),
    save: get<HTMLButtonElement>('settings-save'),
    back: get<HTMLButtonElement>('settings-back'),
    result: get('settings-result'),
  };
}

/** Shows the stored values in the fields (the machine key field stays empty). */
function fill(el: SettingsElements, view: SettingsView): void {
  el.registryUrl.value = view.registryUrl;
  el.pinnedKeys.value = view.pinnedKeys.join('\n');
  el.machineKey.value = '';
  el.machineKey.placeholder = view.machineKeySet ? 'kept (leave empty to keep it)' : '';
  const kept = view.machineKeySet ? 'A key is kept: leave the field empty to keep it. ' : '';
  setText(el.machineKeyHint, `${kept}${view.machineKeyStorage}`);
  // The kept root never comes back: the field stays empty and the hint says one is kept.
  el.trustedRoot.value = '';
  el.trustedRootFile.value = '';
  const rootKept = view.trustedRootKept ?? '';
  setText(el.trustedRootHint, rootKept === '' ? ROOT_HINT : `${rootKept} ${ROOT_HINT}`);
  // Offered only while a root is kept: there is nothing to forget otherwise.
  el.forgetRoot.checked = false;
  el.forgetRootRow.hidden = rootKept === '';
  el.interval.value = String(view.checkIntervalMinutes);
  el.paused.checked = view.paused;
  el.startAtLogin.checked = view.startAtLogin;
  el.startAtLogin.disabled = !view.startAtLoginAvailable;
  el.startAtLoginHint.hidden = view.startAtLoginAvailable;
  el.requireNonce.checked = view.requireNonce;
  el.updatePolicy.value = view.updatePolicy;
  el.selfUpdate.value = view.selfUpdate;
  el.minimise.checked = view.minimiseToBackground;
}

const ROOT_HINT =
  'Optional: the root.json your registry’s operator gives. Trust then starts from it (TUF), and public keys are optional.';

/** The options of the two choices (the app checks them again on Save). */
const UPDATE_POLICIES: readonly UpdatePolicy[] = ['auto', 'ask', 'notify'];
const SELF_UPDATE_CHOICES: readonly SelfUpdateChoice[] = ['auto', 'ask', 'never'];

/** The option chosen in `select`, as one of `choices` (the first when none matches). */
function chosen<T extends string>(select: HTMLSelectElement, choices: readonly T[]): T {
  return choices.find((c) => c === select.value) ?? (choices[0] as T);
}

/** What Save sends: the fields as typed (the app trims and judges them). */
function read(el: SettingsElements): SettingsInput {
  return {
    registryUrl: el.registryUrl.value,
    pinnedKeys: el.pinnedKeys.value.split(/\r?\n/),
    machineKey: el.machineKey.value,
    trustedRoot: el.trustedRoot.value,
    forgetTrustedRoot: el.forgetRoot.checked,
    // An empty or non-numeric field crosses as NaN's stand-in 0: the app asks for a number.
    checkIntervalMinutes: Number.isFinite(el.interval.valueAsNumber)
      ? el.interval.valueAsNumber
      : 0,
    paused: el.paused.checked,
    startAtLogin: el.startAtLogin.checked,
    requireNonce: el.requireNonce.checked,
    updatePolicy: chosen(el.updatePolicy, UPDATE_POLICIES),
    selfUpdate: chosen(el.selfUpdate, SELF_UPDATE_CHOICES),
    minimiseToBackground: el.minimise.checked,
  };
}

function clearProblems(doc: Document, el: SettingsElements): void {
  el.problems.hidden = true;
  el.problemList.replaceChildren();
  for (const id of Object.values(FIELD_IDS)) {
    doc.getElementById(id)?.removeAttribute('aria-invalid');
    const line = doc.getElementById(`${id}-error`);
    if (line !== null) {
      line.hidden = true;
      setText(line, '');
    }
  }
}

/**
 * One line of the error summary, a link to its field (GOV.UK "Error summary" pattern): it moves
 * focus to the field without navigating (the page stays where it is, no history entry).
 */
function problemItem(doc: Document, fieldId: string, words: string): HTMLLIElement {
  const item = doc.createElement('li');
  const link = doc.createElement('a');
  link.href = `#${fieldId}`;
  link.textContent = words;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    doc.getElementById(fieldId)?.focus();
  });
  item.append(link);
  return item;
}

function showProblems(
  doc: Document,
  el: SettingsElements,
  problems: readonly FieldProblem[],
): void {
  clearProblems(doc, el);
  for (const problem of problems) {
    const id = FIELD_IDS[problem.field];
    doc.getElementById(id)?.setAttribute('aria-invalid', 'true');
    const line = doc.getElementById(`${id}-error`);
    if (line !== null) {
      line.hidden = false;
      setText(line, problem.words);
    }
    el.problemList.append(problemItem(doc, id, problem.words));
  }
  el.problems.hidden = false;
  // The summary takes focus, so a screen reader reads what to fix (WCAG 3.3.1).
  el.problems.focus();
}

export interface SettingsScreen {
  open(): void;
}

/**
 * Wires the screen. `others` are the cards it replaces while open; `opener` gets focus back
 * when it closes.
 */
export function wireSettings(
  api: BridgeApi,
  doc: Document,
  options: { readonly others: readonly HTMLElement[]; readonly opener: HTMLButtonElement },
): SettingsScreen {
  const el = find(doc);
  const bridgeFailed = (): void => {
    el.result.dataset['ok'] = 'false';
    setText(el.result, 'The app’s background process did not answer. Try again. (BRIDGE)');
  };

  const close = (): void => {
    el.section.hidden = true;
    for (const card of options.others) card.hidden = false;
    options.opener.focus();
  };

  const open = (): void => {
    clearProblems(doc, el);
    setText(el.result, '');
    for (const card of options.others) card.hidden = true;
    el.section.hidden = false;
    el.title.focus();
    void api.getSettings().then((view) => fill(el, view), bridgeFailed);
  };

  el.form.addEventListener('submit', (event) => {
    event.preventDefault(); // nothing navigates (CSP form-action 'none'): the bridge saves
    // Busy as aria-disabled, never `disabled`: a disabled button drops focus to <body>.
    if (el.save.getAttribute('aria-disabled') === 'true') return;
    el.save.setAttribute('aria-disabled', 'true');
    el.save.setAttribute('aria-busy', 'true');
    setText(el.result, '');
    void api
      .saveSettings(read(el))
      .then((answer) => {
        if (!answer.ok) {
          showProblems(doc, el, answer.problems);
          return;
        }
        clearProblems(doc, el);
        fill(el, answer.settings);
        el.result.dataset['ok'] = 'true';
        setText(el.result, answer.words);
      }, bridgeFailed)
      .finally(() => {
        el.save.removeAttribute('aria-disabled');
        el.save.removeAttribute('aria-busy');
      });
  });
  // A picked file fills the text field; the app judges the text on Save, as if pasted.
  el.trustedRootFile.addEventListener('change', () => {
    const file = el.trustedRootFile.files?.[0];
    if (file !== undefined) void file.text().then((text) => (el.trustedRoot.value = text));
  });
  el.back.addEventListener('click', close);
  doc.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !el.section.hidden) close();
  });
  options.opener.addEventListener('click', open);
  return { open };
}
