// The window at 380, 800 and 1280 px wide, light and dark, saved under docs/screenshots/
// (docs/DESKTOP.md "Window layout"), and a watch that focus never falls to <body>.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { expectNoAxeViolations } from './axe.js';

const DOCS = resolve(import.meta.dirname, '../../docs/screenshots');
const SIZES = [
  { width: 380, height: 560 },
  { width: 800, height: 700 },
  { width: 1280, height: 800 },
] as const;

/** Saves docs/screenshots/<name>-<width>-<light|dark>.png for each size and scheme, axe on each. */
export async function shootViewports(page: Page, name: string): Promise<string[]> {
  await mkdir(DOCS, { recursive: true });
  const saved: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const path = join(DOCS, `${name}-${size.width}-${scheme}.png`);
      await page.screenshot({ path });
      saved.push(path);
    }
    await expectNoAxeViolations(page, `${name} ${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES[0]);
  return saved;
}

/**
 * Records every time focus left an element and landed on <body> (a control that disabled or
 * hid itself while focused). Call before page.goto.
 */
export async function watchFocus(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const lost: string[] = [];
    (window as unknown as { focusLost: string[] }).focusLost = lost;
    document.addEventListener(
      'focusout',
      (event) => {
        const from = event.target instanceof HTMLElement ? event.target.id : '?';
        // After the focus change settles (during it, activeElement is <body> for a moment).
        setTimeout(() => {
          if (document.hasFocus() && document.activeElement === document.body) lost.push(from);
        }, 0);
      },
      true,
    );
  });
}

export async function expectFocusNeverOnBody(page: Page): Promise<void> {
  const lost = await page.evaluate(() => (window as unknown as { focusLost: string[] }).focusLost);
  expect(lost).toEqual([]);
}
