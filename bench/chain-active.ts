/**
 * Benchmark of GET /api/chain/active (docs/CHAIN.md). Run: npx tsx bench/chain-active.ts [seconds-per-run, default 2]
 *  1. builds 100k machines and 1M transitions inside the default window (60 units);
 *  2. times full recomputes (window sum + top-k + serialization), target <= 50 ms, and the
 *     per-unit recomputes done by deltas when the clock moves one unit;
 *  3. compares GET /api/chain/active on the foundation's buildApp (logger silent, simulator off)
 *     with a plain node:http server returning the same bytes, with autocannon, in the same run,
 *     target >= 0.8x.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { buildApp } from '#server/compose/app.js';
import { ChainState } from '#server/chain/chain-state.js';
import { mulberry32 } from '#server/chain/seeded-prng.js';
import { unitStartMs } from '#server/chain/time-units.js';
import { loadTest } from './load-worker.js';

const MACHINES = 100_000;
const TRANSITIONS = 1_000_000;
const WINDOW = 60;
const SECONDS = Number(process.argv[2] ?? 2);
const ROUNDS = 8;

interface Target {
  addMachine(input: { id: string; name: string; visibility: 'public' | 'private' }): unknown;
  addTransitions(input: { machine_id: string; count: number; unit?: number }): unknown;
}

/** 100k machines (20% private), 1M single transitions spread over the last 60 completed units. */
function populate(target: Target, currentUnit: number): { ingestNsPerTransition: number } {
  const rng = mulberry32(2024);
  const ids: string[] = [];
  for (let i = 0; i < MACHINES; i++) {
    const id = `m-${String(i).padStart(6, '0')}`;
    ids.push(id);
    target.addMachine({ id, name: `machine ${i}`, visibility: rng() < 0.2 ? 'private' : 'public' });
  }
  const started = performance.now();
  for (let i = 0; i < TRANSITIONS; i++) {
    // Heavy-tailed pick: low indices are much more active.
    const m = Math.floor(MACHINES * Math.pow(rng(), 3));
    target.addTransitions({
      machine_id: ids[m] ?? 'm-000000',
      count: 1,
      unit: currentUnit - 1 - (i % WINDOW),
    });
  }
  return { ingestNsPerTransition: ((performance.now() - started) * 1e6) / TRANSITIONS };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

function stats(times: number[]): { min: number; p50: number; max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    min: +(sorted[0] ?? 0).toFixed(2),
    p50: +percentile(sorted, 0.5).toFixed(2),
    max: +(sorted[sorted.length - 1] ?? 0).toFixed(2),
  };
}

function recomputeBench(): void {
  let now = Math.ceil(unitStartMs(2_300_000_000));
  const state = new ChainState(() => now);
  const { ingestNsPerTransition } = populate(state, state.units.current());
  const asOf = state.units.lastCompleted();

  // Full recompute: a write into a completed unit invalidates everything, so the next read
  // rebuilds the window sum from the ring (1M entries), selects the top 100 and serializes.
  const full: number[] = [];
  for (let i = 0; i < 30; i++) {
    state.addTransitions({ machine_id: 'm-000001', count: 1, unit: asOf });
    const t = performance.now();
    state.body(WINDOW, 100);
    full.push(performance.now() - t);
  }
  const hits: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    state.body(WINDOW, 100);
    hits.push(performance.now() - t);
  }
  // Per-unit recompute as in production: the clock moves one unit, the window moves by deltas.
  const perUnit: number[] = [];
  const movesBefore = state.windowMoves.incremental;
  for (let i = 0; i < 20; i++) {
    now = Math.ceil(unitStartMs(state.units.current() + 1));
    const t = performance.now();
    state.body(WINDOW, 100);
    perUnit.push(performance.now() - t);
  }
  const mem = process.memoryUsage();
  console.log(
    JSON.stringify({
      step: 'recompute',
      machines: MACHINES,
      transitions_in_window: TRANSITIONS,
      ingest_ns_per_transition: Math.round(ingestNsPerTransition),
      full_recompute_ms: stats(full),
      per_unit_recompute_ms: stats(perUnit),
      per_unit_moves_incremental: state.windowMoves.incremental - movesBefore,
      cached_read_us_p50: +(
        percentile(
          [...hits].sort((a, b) => a - b),
          0.5,
        ) * 1000
      ).toFixed(2),
      heap_used_mb: Math.round(mem.heapUsed / 1e6),
      array_buffers_mb: Math.round(mem.arrayBuffers / 1e6),
      load_average_1m: +(loadavg()[0] ?? 0).toFixed(2),
    }),
  );
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function throughputBench(): Promise<void> {
  const built = await buildApp({ logLevel: 'silent', simulate: false });
  const chain = built.modules.chain.api;
  populate(chain, chain.unitNow());
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const fastifyUrl = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}/api/chain/active`;
  const sample = await fetch(fastifyUrl);
  const bytes = Buffer.from(await sample.arrayBuffer());
  const contentType = sample.headers.get('content-type') ?? 'application/json';
  const plain = createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': contentType,
      'content-length': bytes.length,
      'access-control-allow-origin': '*',
    });
    res.end(bytes);
  });
  const plainUrl = `${await listen(plain)}/api/chain/active`;

  // Warm-up (JIT, sockets), not counted.
  await loadTest(fastifyUrl, 1);
  await loadTest(plainUrl, 1);
  const results: { fastify: number[]; plain: number[] } = { fastify: [], plain: [] };
  // Interleaved, so drift in the shared CPUs hits both sides alike; eight rounds each.
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url] of [
      ['fastify', fastifyUrl],
      ['plain', plainUrl],
    ] as const) {
      const r = await loadTest(url, SECONDS);
      if (r.non2xx !== 0 || r.errors !== 0)
        throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results[name].push(r.average);
    }
  }
  const fastify = Math.max(...results.fastify);
  const plainBest = Math.max(...results.plain);
  const ratios = results.fastify.map((f, i) => f / (results.plain[i] ?? 1));
  console.log(
    JSON.stringify({
      step: 'throughput',
      app: 'buildApp (foundation), logger silent, simulator off',
      body_bytes: bytes.length,
      seconds_per_run: SECONDS,
      fastify_req_per_s: results.fastify.map(Math.round),
      plain_node_http_req_per_s: results.plain.map(Math.round),
      ratio_best: +(fastify / plainBest).toFixed(3),
      ratio_per_round: ratios.map((r) => +r.toFixed(3)),
      ratio_median: +(ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)] ?? 0).toFixed(3),
      load_average_1m: +(loadavg()[0] ?? 0).toFixed(2),
    }),
  );
  await built.app.close();
  await new Promise<void>((resolve) => plain.close(() => resolve()));
}

recomputeBench();
await throughputBench();
