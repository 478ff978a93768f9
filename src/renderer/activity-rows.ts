/**
 * The ranking's rows, kept across refreshes: one <li> per machine id, updated in place and
 * moved only when its position changes, so keyboard focus stays on its machine. Moves use
 * Element.moveBefore() (DOM "state-preserving atomic move": focus survives) where the engine
 * has it, else insertBefore() and focus put back. Text reaches the DOM only as textContent.
 * The list is one Tab stop (roving tabindex, docs/DESKTOP.md "Window layout"): exactly one row
 * has tabIndex 0, the arrow keys move between rows (activity-keys.ts).
 */
import type { ActiveMachine } from '#protocol/activity.js';
import { setText } from './dom-text.js';
import {
  barPercent,
  competitionRanks,
  countColumnCh,
  formatCompact,
  formatCount,
  isolate,
} from './format.js';
import { createSparkline, drawSparkline, seriesPeak } from './sparkline.js';

type Movable = HTMLOListElement & {
  moveBefore?: (node: Node, child: Node | null) => void;
};

/** The one scale of every row's sparkline: the highest bucket of all rows. */
export function sharedPeak(machines: readonly ActiveMachine[]): number {
  return machines.reduce((m, machine) => Math.max(m, seriesPeak(machine.series ?? [])), 0);
}

/** Shows `machines` (ranking order) in `list`, reusing the rows already there. */
export function updateRows(
  doc: Document,
  list: HTMLOListElement,
  machines: readonly ActiveMachine[],
  locale: string,
): void {
  const byId = new Map<string, HTMLLIElement>();
  for (const child of Array.from(list.children)) {
    const id = (child as HTMLElement).dataset['machineId'];
    if (id !== undefined) byId.set(id, child as HTMLLIElement);
  }
  const focusedIndex = Array.from(list.children).findIndex((c) => c.contains(doc.activeElement));
  const max = machines.reduce((m, machine) => Math.max(m, machine.transitions), 0);
  const ranks = competitionRanks(machines.map((m) => m.transitions));
  const scale = { max, peak: sharedPeak(machines), locale };
  const kept = new Set<HTMLLIElement>();
  machines.forEach((machine, index) => {
    const row = byId.get(machine.id) ?? createRow(doc, machine.id);
    kept.add(row);
    const rank = ranks[index] ?? index + 1;
    const tied = ranks[index - 1] === rank || ranks[index + 1] === rank;
    fillRow(row, machine, rank, tied, scale);
    const at = list.children.item(index);
    if (at !== row) moveRow(doc, list, row, at);
  });
  for (const child of Array.from(list.children)) {
    if (!kept.has(child as HTMLLIElement)) child.remove();
  }
  // One width for the count column of every row and of the heading (their common parent).
  const counts = machines.map((m) => m.transitions);
  const ch = `${countColumnCh(counts, locale)}ch`;
  const columns = list.parentElement ?? list;
  if (columns.style.getPropertyValue('--count-width') !== ch) {
    columns.style.setProperty('--count-width', ch);
  }
  // The focused machine left the ranking: keep the keyboard in the list, at the same place.
  if (focusedIndex >= 0 && !list.contains(doc.activeElement)) {
    const next = list.children.item(Math.min(focusedIndex, list.children.length - 1));
    (next as HTMLElement | null)?.focus({ preventScroll: true });
  }
  keepOneTabStop(doc, list);
}

/** Exactly one row is in the Tab order: the focused one, else the one that was, else the first. */
export function keepOneTabStop(doc: Document, list: HTMLOListElement): void {
  const rows = Array.from(list.children) as HTMLElement[];
  const stop =
    rows.find((row) => row === doc.activeElement) ??
    rows.find((row) => row.tabIndex === 0) ??
    rows[0];
  for (const row of rows) row.tabIndex = row === stop ? 0 : -1;
}

function moveRow(doc: Document, list: Movable, row: HTMLLIElement, before: Element | null): void {
  if (!row.isConnected) {
    list.insertBefore(row, before);
    return;
  }
  if (typeof list.moveBefore === 'function') {
    list.moveBefore(row, before);
    return;
  }
  const hadFocus = row.contains(doc.activeElement);
  list.insertBefore(row, before);
  if (hadFocus) row.focus({ preventScroll: true });
}

function createRow(doc: Document, id: string): HTMLLIElement {
  const li = doc.createElement('li');
  li.tabIndex = -1; // keepOneTabStop() makes one row the list's Tab stop.
  li.dataset['machineId'] = id;
  const rank = doc.createElement('span');
  rank.className = 'rank';
  // <bdi>: a name in another direction, or carrying U+202E, cannot reorder what follows it.
  const name = doc.createElement('bdi');
  name.className = 'name';
  const bar = doc.createElement('span');
  bar.className = 'bar';
  bar.setAttribute('aria-hidden', 'true');
  const fill = doc.createElement('span');
  fill.className = 'bar-fill';
  bar.append(fill);
  const count = doc.createElement('span');
  count.className = 'count';
  li.append(rank, name, createSparkline(doc), bar, count);
  return li;
}

function fillRow(
  li: HTMLLIElement,
  machine: ActiveMachine,
  rank: number,
  tied: boolean,
  scale: { readonly max: number; readonly peak: number; readonly locale: string },
): void {
  const [rankEl, nameEl, spark, bar, countEl] = Array.from(li.children) as HTMLElement[];
  // The exact figure is spoken ("12,000,000 transitions"); the column shows "12M".
  const exact = formatCount(machine.transitions, scale.locale);
  const noun = machine.transitions === 1 ? 'transition' : 'transitions';
  const label = `Rank ${rank}${tied ? ', tied' : ''}: ${isolate(machine.name)}, ${exact} ${noun}`;
  if (li.getAttribute('aria-label') !== label) li.setAttribute('aria-label', label);
  if (rankEl !== undefined) setText(rankEl, String(rank));
  if (nameEl !== undefined) {
    setText(nameEl, machine.name);
    nameEl.title = machine.name;
  }
  if (countEl !== undefined) setText(countEl, formatCompact(machine.transitions, scale.locale));
  if (spark !== undefined) drawSparkline(spark, machine.series, scale.peak);
  const fill = bar?.firstElementChild as HTMLElement | null | undefined;
  // CSSOM, not a style attribute: allowed under style-src 'self' (CSP3 §6.7.3).
  if (fill) fill.style.width = `${barPercent(machine.transitions, scale.max)}%`;
}
