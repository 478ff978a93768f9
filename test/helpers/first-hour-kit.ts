/**
 * The situations of the window's "first hour" (docs/screenshots/BEFORE-AFTER.md), shared by the
 * "after" e2e (test/e2e/before-after.spec.ts) and the "before" generator
 * (scripts/before-after-shots.ts), so both versions meet the same releases, the same faults,
 * the same ranking and the same throttled link, and are shot the same way: one PNG per item at
 * device scale 1, clipped to the card or widget the item is about.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { startServeProcess, type ServeProcess } from './serve-process.js';
import { startThrottleProxy, type ThrottleProxy } from './throttle-proxy.js';

export const SHOTS_DIR = resolve(import.meta.dirname, '../../docs/screenshots/before-after');
export type Side = 'before' | 'after';

/** 800 px for the card; the tray window (380 x 560) for the items about a narrow one. */
export const WIDE = { width: 800, height: 900 } as const;
export const NARROW = { width: 380, height: 560 } as const;
/** 380 px wide and tall enough for the whole settings form in one picture. */
export const NARROW_TALL = { width: 380, height: 1100 } as const;

export const ARTIFACT_ROUTE = 'GET /api/updates/artifacts/:sha256';

/** A release of two artifacts (256 KiB + 512 KiB), fetched one at a time in the harness. */
export function twoArtifacts(): { name: string; content: Uint8Array }[] {
  return [
    { name: 'app/core.bin', content: randomBytes(256 * 1024) },
    { name: 'app/assets.bin', content: randomBytes(512 * 1024) },
  ];
}

/** Small text artifacts for the installs that only move the version. */
export function textArtifact(words: string): { name: string; content: Uint8Array }[] {
  return [{ name: 'a.txt', content: new TextEncoder().encode(words) }];
}

export const NOTES = [
  '## 2.0.0',
  '',
  'Sync is **faster** and `verify` names every changed file.',
  '',
  '- <script>alert(1)</script> stays text',
  '- [the changelog](https://example.invalid/changelog) keeps its words only',
].join('\n');

/** What the before and after servers' chain have in common for seeding a ranking. */
export interface ChainSeeder {
  unitNow(): number;
  addMachine(machine: { id: string; name: string; visibility: 'public' | 'private' }): void;
  addTransitions(batch: { machine_id: string; count: number; unit: number }): void;
}

const MACHINE_NAMES = [
  'Build farm runner eu-west-2 #07',
  'Reception kiosk, ground floor',
  'Render node gpu-a100-long-name-12',
  'Lab bench analyser (room 4.112)',
  'Warehouse scanner north dock',
  'CI macOS arm64 builder 3',
  'Meeting room display "Atlas"',
  'Field laptop – survey team B',
  'Point of sale till 14',
  'Signage player lobby east',
];

/** Ten machines with long names, counts from 12,000,000 down to tens, over eight units. */
export function seedRanking(chain: ChainSeeder): void {
  const now = chain.unitNow();
  MACHINE_NAMES.forEach((name, i) => {
    const id = `m-${i}`;
    chain.addMachine({ id, name, visibility: 'public' });
    const top = Math.round(12_000_000 / 4 ** i) + 17;
    for (let back = 8; back >= 1; back -= 1) {
      // A different shape per row: some rising, some falling, one bursty.
      const shape = i % 3 === 0 ? 9 - back : i % 3 === 1 ? back : back % 3 === 0 ? 8 : 1;
      let count = Math.ceil((top * shape) / 8);
      // The chain takes at most a million transitions per call.
      for (; count > 0; count -= 1_000_000)
        chain.addTransitions({
          machine_id: id,
          count: Math.min(count, 1_000_000),
          unit: now - back,
        });
    }
  });
}

/** The throttled link of item 2: 1 MiB/s, a 12 MiB release, cut for 4 s about a third in. */
export const LINK_BYTES_PER_SECOND = 1024 * 1024;
export const BIG_RELEASE_BYTES = 12 * 1024 * 1024;

/** What item 2's scene needs of a companion server, of this tree or of an older one. */
export interface OutageRegistry {
  readonly url: string;
  readonly nodePubkey: string;
  publish(release: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** Item 2's scene: a registry with 3.0.0 (12 MiB), the throttled link, and `updater serve` on it. */
export interface OutageScene {
  readonly link: ThrottleProxy;
  readonly serve: ServeProcess;
  /** Stops all of it and gives `updater serve`'s exit code. */
  readonly stop: () => Promise<number | null>;
}

/**
 * Builds item 2's scene the same way for both versions: `startRegistry` is this tree's or the
 * older tree's `startServer`, `serveBundle` the `updater serve` bundle to run (this tree's by
 * default).
 */
export async function startOutageScene(
  startRegistry: (options: { dev: true; simulate: false }) => Promise<OutageRegistry>,
  side: Side,
  serveBundle?: string,
): Promise<OutageScene> {
  const registry = await startRegistry({ dev: true, simulate: false });
  const link = await startThrottleProxy({
    target: registry.url,
    bytesPerSecond: LINK_BYTES_PER_SECOND,
  });
  const dataDir = await mkdtemp(join(tmpdir(), `${side}-item-2-`));
  const mint = await fetch(`${registry.url}/api/demo-key/mint`, { method: 'POST' });
  const { machine_key: machineKey } = (await mint.json()) as { machine_key: string };
  await registry.publish({
    registry_version: '3.0.0',
    artifacts: [{ name: 'app.bin', content: new Uint8Array(BIG_RELEASE_BYTES).fill(5) }],
  });
  const serve = await startServeProcess(
    ['--base-url', link.url, '--pubkey', registry.nodePubkey, '--data-dir', dataDir],
    { UPDATER_MACHINE_KEY: machineKey, NO_PROXY: '*' },
    serveBundle,
  );
  const stop = async (): Promise<number | null> => {
    const code = await serve.stop();
    await link.close();
    await registry.close();
    await rm(dataDir, { recursive: true, force: true });
    return code;
  };
  return { link, serve, stop };
}

async function until(test: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > end) throw new Error('the throttled download did not get that far');
    await new Promise((done) => setTimeout(done, 100));
  }
}

/**
 * Item 2's situation, the same in both versions: Check now starts the 12 MiB download over the
 * throttled link, the link is cut for 4 s a third of the way in, then restored; Check now again
 * if the run gave up; returns, once 3.5 MiB more have arrived, what resumed it.
 */
export async function resumeAfterOutage(
  page: Page,
  link: ThrottleProxy,
): Promise<'own retry' | 'Check now'> {
  const checkNow = page.getByRole('button', { name: 'Check now' });
  await checkNow.click();
  await until(() => link.sentBytes() > BIG_RELEASE_BYTES / 3, 60_000);
  link.cut();
  await new Promise((done) => setTimeout(done, 4_000));
  link.restore();
  const resumedFrom = link.sentBytes();
  // Either the run resumes by its own retry, or it gave up and Check now is free again (neither
  // disabled nor aria-disabled): then the user's Check now resumes it.
  const free = (): Promise<boolean> =>
    checkNow.evaluate(
      (button) =>
        !(button as HTMLButtonElement).disabled && button.getAttribute('aria-disabled') !== 'true',
    );
  await until(async () => link.sentBytes() > resumedFrom || (await free()), 30_000);
  const by = link.sentBytes() === resumedFrom ? 'Check now' : 'own retry';
  if (by === 'Check now') await checkNow.click();
  // 3.5 s of the link's rate: long enough for a steady rate, well before the end.
  await until(() => link.sentBytes() > resumedFrom + 3.5 * 1024 * 1024, 60_000);
  return by;
}

/** Saves `dir`/item-N-<side>.png (docs/screenshots/before-after/), clipped to `target`. */
export async function shoot(
  target: Locator,
  item: number,
  side: Side,
  dir = SHOTS_DIR,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `item-${item}-${side}.png`);
  await target.screenshot({ path, animations: 'disabled', caret: 'hide' });
  return path;
}

/** The status card and the ranking widget, by what both versions' pages have in common. */
export const statusCard = (page: Page): Locator =>
  page.locator('section.card[aria-labelledby="status-title"]');
export const rankingCard = (page: Page): Locator => page.locator('section.card.activity');
export const settingsCard = (page: Page): Locator => page.locator('#settings');
