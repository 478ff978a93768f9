/**
 * Desktop app figures (docs/DESKTOP.md). Run: npx tsx bench/desktop-app.ts
 *  1. esbuild time and size of the three bundles (main, preload, renderer);
 *  2. first-run demo wiring: in-process companion server + demo release + minted key
 *     (src/app/registry/first-run.ts with the real startServer), median of 3;
 *  3. the widget's data path: main-process GET /api/chain/active (activity-client.ts) against
 *     the real server with 1000 simulated machines, 300 sequential calls, p50/p99;
 *  4. status folding (status-model.ts): progress events per second.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServer } from '#server/compose/start-server.js';
import { fetchActivity } from '#app/activity-client.js';
import { chooseRegistry } from '#app/registry/first-run.js';
import { applyEvent, initialStatus } from '#app/status/status-model.js';
import { buildApp } from '../scripts/build-app.mjs';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function size(path: string): Promise<number> {
  return (await stat(path)).size;
}

async function bundles(): Promise<void> {
  const out = await mkdtemp(join(tmpdir(), 'bench-desktop-build-'));
  try {
    const t0 = performance.now();
    const built = await buildApp({ outDir: out });
    const ms = performance.now() - t0;
    const renderer =
      (await size(join(built.renderer, 'renderer.js'))) +
      (await size(join(built.renderer, 'styles.css'))) +
      (await size(join(built.renderer, 'index.html')));
    console.log(`build: ${ms.toFixed(0)} ms for main + preload + renderer`);
    console.log(
      `sizes: main ${((await size(built.main)) / 1024) | 0} KiB, preload ${await size(built.preload)} B, renderer (js+css+html) ${(renderer / 1024).toFixed(1)} KiB`,
    );
    const html = await readFile(join(built.renderer, 'index.html'), 'utf8');
    console.log(`renderer inline scripts: ${(html.match(/<script>(?!<)/g) ?? []).length}`);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

async function firstRun(): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-desktop-demo-'));
    const t0 = performance.now();
    const choice = await chooseRegistry({
      settings: { baseUrl: '', pinnedKeys: [] },
      readBundledKey: () => Promise.resolve(null),
      secrets: { load: () => null, save: () => false },
      startDemoServer: () => startServer({ dataDir, simulate: true }),
    });
    times.push(performance.now() - t0);
    await choice.demo?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  console.log(
    `first-run demo wiring: median ${times[1]?.toFixed(0)} ms (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`,
  );
}

async function activity(): Promise<void> {
  const server = await startServer({ simulate: true, simulateMachines: 1000 });
  try {
    await fetchActivity({ baseUrl: server.url }); // warm-up
    const times: number[] = [];
    let ok = 0;
    for (let i = 0; i < 300; i += 1) {
      const t0 = performance.now();
      const result = await fetchActivity({ baseUrl: server.url });
      times.push(performance.now() - t0);
      if (result.state === 'ok') ok += 1;
    }
    times.sort((a, b) => a - b);
    console.log(
      `activity fetch (main process, loopback): p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms, ok ${ok}/300`,
    );
  } finally {
    await server.close();
  }
}

function folding(): void {
  const n = 1_000_000;
  let status = initialStatus('bench');
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    status = applyEvent(status, { type: 'progress', bytes: i, total: n, artifact: 'a' });
  }
  const ms = performance.now() - t0;
  console.log(`status folding: ${(((n / ms) * 1000) / 1e6).toFixed(1)} M progress events/s`);
}

await bundles();
await firstRun();
await activity();
folding();
