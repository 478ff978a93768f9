/**
 * The ranking as one Tab stop (docs/DESKTOP.md "Window layout"): Arrow Up and Down move
 * between rows, Home and End to the first and last; the row that gets focus becomes the Tab
 * stop (roving tabindex, WAI-ARIA Authoring Practices "Keyboard Navigation Inside Components").
 */
import { keepOneTabStop } from './activity-rows.js';

/** Where a key moves focus from `index` among `count` rows; null for another key. */
export function nextRowIndex(key: string, index: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case 'ArrowDown':
      return Math.min(count - 1, index + 1);
    case 'ArrowUp':
      return Math.max(0, index - 1);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}

export function wireRowKeys(doc: Document, list: HTMLOListElement): void {
  list.addEventListener('keydown', (event) => {
    const rows = Array.from(list.children) as HTMLElement[];
    const index = rows.findIndex((row) => row === doc.activeElement);
    if (index < 0) return;
    const next = nextRowIndex(event.key, index, rows.length);
    if (next === null) return;
    event.preventDefault();
    rows[next]?.focus();
    keepOneTabStop(doc, list);
  });
  // A click or a programmatic focus moves the Tab stop too.
  list.addEventListener('focusin', () => keepOneTabStop(doc, list));
}
