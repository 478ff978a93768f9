/**
 * The gzip-coded manifest answer (docs/PROTOCOL.md §2.7.6, Content coding): bytes and time of
 * zlib levels 1, 6 and 9 on real answers of the companion server (1 and 10,000 artifacts, with
 * the format 1 envelope), for the whole answer coded at once and for the frame coding the server
 * uses (server/src/updates/gzip-frame.ts: the head deflated once per frame, then per answer, or
 * per nonce request, only the freshness envelope and the tail), next to the Ed25519 signature a
 * nonce answer costs anyway. In-process, medians of many runs.
 * Run: npx tsx bench/manifest-gzip.ts [runs, default 30]
 */
import { performance } from 'node:perf_hooks';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startServer } from '#server/compose/start-server.js';
import { GzipFrame } from '#server/updates/gzip-frame.js';

const RUNS = Number(process.argv[2] ?? 30);
const LEVELS = [1, 6, 9] as const;

const median = (values: readonly number[]): number =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;

/** Median microseconds of `fn` over `runs` runs. */
function timeUs(runs: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  return median(times);
}

async function answerOf(count: number): Promise<Buffer> {
  const server = await startServer({ simulate: false, logLevel: 'silent' });
  try {
    const text = (s: string) => new TextEncoder().encode(s);
    await server.publish({
      registry_version: '1.0.0',
      artifacts: Array.from({ length: count }, (_, i) => ({
        name: `app/dir${Math.floor(i / 100)}/file-${i}.js`,
        content: text(`export const n = ${i};`),
      })),
    });
    const key = (await server.updates.mintMachineKey()).machine_key;
    const res = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
    });
    return Buffer.from(await res.arrayBuffer());
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  for (const count of [1, 10_000]) {
    const answer = await answerOf(count);
    const cut = answer.lastIndexOf(Buffer.from(',"freshness":')) + ',"freshness":'.length;
    const head = answer.subarray(0, cut);
    const rest = answer.subarray(cut);
    const runs = count === 1 ? RUNS * 20 : RUNS;
    console.log(
      `${count} artifact(s): answer ${answer.length} B (head ${head.length} B, freshness + tail ${rest.length} B), median of ${runs}`,
    );
    console.log('level  whole gzip B  ratio  whole us  frame B  frame head us  per answer us');
    for (const level of LEVELS) {
      const whole = gzipSync(answer, { level });
      const frame = new GzipFrame(head, level);
      const coded = frame.code(rest);
      if (Buffer.compare(gunzipSync(coded), answer) !== 0) throw new Error('frame coding differs');
      const wholeUs = timeUs(runs, () => gzipSync(answer, { level }));
      const headUs = timeUs(runs, () => new GzipFrame(head, level));
      const perUs = timeUs(runs * 10, () => frame.code(rest));
      console.log(
        `${String(level).padStart(5)}  ${String(whole.length).padStart(12)}  ${(whole.length / answer.length).toFixed(3)}  ${wholeUs.toFixed(0).padStart(8)}  ${String(coded.length).padStart(7)}  ${headUs.toFixed(0).padStart(13)}  ${perUs.toFixed(0).padStart(13)}`,
      );
    }
    const inflateUs = timeUs(runs, () => gunzipSync(gzipSync(answer, { level: 6 })));
    console.log(`client side: gzip -6 + gunzip of the whole answer ${inflateUs.toFixed(0)} us`);
  }
}

await main();
