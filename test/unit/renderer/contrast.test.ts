/**
 * The window's colour pairs meet WCAG 2.2 contrast in both themes, computed from the custom
 * properties in src/renderer/styles.css (relative luminance, WCAG 2.2 "contrast ratio"): text
 * 4.5:1 (1.4.3), the focus ring and the bars 3:1 against what surrounds them (1.4.11, 2.4.13).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const CSS = readFileSync(resolve(import.meta.dirname, '../../../src/renderer/styles.css'), 'utf8');

function variables(block: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6});/g)) {
    found.set(match[1] ?? '', match[2] ?? '');
  }
  return found;
}

function theme(name: 'light' | 'dark'): Map<string, string> {
  const light = variables(/:root \{([\s\S]*?)\}/.exec(CSS)?.[1] ?? '');
  if (name === 'light') return light;
  const dark = /@media \(prefers-color-scheme: dark\) \{\s*:root \{([\s\S]*?)\}/.exec(CSS)?.[1];
  return new Map([...light, ...variables(dark ?? '')]);
}

function luminance(hex: string): number {
  const channel = (offset: number): number => {
    const c = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const TEXT_PAIRS: readonly [string, string][] = [
  ['text', 'card'],
  ['text', 'bg'],
  ['muted', 'card'],
  ['muted', 'bg'],
  ['accent-text', 'accent'],
  ['error-text', 'error-bg'],
  ['notice-text', 'notice-bg'],
  ['accent-strong', 'card'],
  ['error-text', 'card'],
];
const GRAPHIC_PAIRS: readonly [string, string][] = [
  ['focus', 'card'],
  ['focus', 'bg'],
  ['bar', 'bar-track'],
  ['bar', 'card'],
];

describe.each(['light', 'dark'] as const)('%s theme', (name) => {
  const colours = theme(name);
  const get = (key: string): string => {
    const value = colours.get(key);
    if (value === undefined) throw new Error(`--${key} is not defined`);
    return value;
  };

  it.each(TEXT_PAIRS)('--%s on --%s reaches 4.5:1', (fg, bg) => {
    expect(contrast(get(fg), get(bg))).toBeGreaterThanOrEqual(4.5);
  });

  it.each(GRAPHIC_PAIRS)('--%s against --%s reaches 3:1', (fg, bg) => {
    expect(contrast(get(fg), get(bg))).toBeGreaterThanOrEqual(3);
  });
});

it('the contrast computation matches WCAG on a known pair (can fail)', () => {
  expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
  // The old amber ring on the light card: 1.83:1, below 3:1.
  expect(contrast('#ffb000', '#ffffff')).toBeLessThan(3);
});
