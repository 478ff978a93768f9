/**
 * The table of bench/network-peers.ts: per contender the median wall time, its runs, the
 * ratios against the floor and against curl, and what crossed the link (requests, connections,
 * turns), as Markdown so it pastes into docs/BENCH-NETWORK.md as printed.
 */
import { percentiles } from './updater-kit.js';

export interface NetSample {
  readonly ms: number;
  /** User + system CPU seconds of the client, children included. */
  readonly cpuS: number;
  /** Every request nginx logged during the run. */
  readonly requests: number;
  /** Those for artifacts (`/files/`): the ones after the manifest or metadata. */
  readonly fileRequests: number;
  readonly connections: number;
  /** Client request bursts (bench/delay-proxy.ts `turns`). */
  readonly turns: number;
  readonly bytesDown: number;
}

const median = (xs: readonly number[]): number => percentiles(xs).median;

export function printNetworkReport(
  title: string,
  rttMs: number,
  samples: ReadonlyMap<string, readonly NetSample[]>,
): void {
  const ms = (label: string): number => median((samples.get(label) ?? []).map((s) => s.ms));
  const labels = [...samples.keys()];
  const floor = labels.find((l) => l.startsWith('floor'));
  const curl = labels.find((l) => l.startsWith('curl'));
  const ratio = (label: string, of: string | undefined): string =>
    of === undefined ? '–' : `${(ms(label) / ms(of)).toFixed(2)}x`;
  const lines = [
    `${title}`,
    '',
    '| contender | median | runs (s) | / floor | / curl | requests (files) | connections | turns | median / RTT | CPU s | MiB down |',
    '| --- | --: | --- | --: | --: | --: | --: | --: | --: | --: | --: |',
  ];
  for (const label of labels) {
    const list = samples.get(label) ?? [];
    const med = (pick: (s: NetSample) => number): number => median(list.map(pick));
    const runs = list.map((s) => (s.ms / 1000).toFixed(2)).join(', ');
    lines.push(
      `| ${label} | ${(ms(label) / 1000).toFixed(2)} s | ${runs} | ${ratio(label, floor)} | ` +
        `${ratio(label, curl)} | ${med((s) => s.requests)} (${med((s) => s.fileRequests)}) | ` +
        `${med((s) => s.connections)} | ${med((s) => s.turns)} | ` +
        `${Math.round(ms(label) / rttMs)} | ${med((s) => s.cpuS).toFixed(2)} | ` +
        `${(med((s) => s.bytesDown) / 1024 / 1024).toFixed(1)} |`,
    );
  }
  console.log(`\n${lines.join('\n')}\n`);
}
