/**
 * Partial selection of the k best candidates with a bounded heap: O(n log k) instead of sorting
 * all n (docs/CHAIN.md §Benchmark: a recompute over 100k machines within 50 ms).
 */

/**
 * Returns the `k` best of `candidates[0..n)` ordered best first. `better(a, b)` must be a strict
 * total order (no two distinct candidates equal), which makes the result deterministic.
 * @example selectTop(Uint32Array.of(3, 1, 2), 3, 2, (a, b) => a > b) // [3, 2]
 */
export function selectTop(
  candidates: Uint32Array,
  n: number,
  k: number,
  better: (a: number, b: number) => boolean,
): number[] {
  if (k <= 0) return [];
  // Min-heap on "better": the root is the worst of the k kept so far.
  const heap: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = candidates[i] ?? 0;
    if (heap.length < k) {
      heap.push(c);
      siftUp(heap, heap.length - 1, better);
    } else if (better(c, heap[0] ?? 0)) {
      heap[0] = c;
      siftDown(heap, 0, better);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}

function siftUp(heap: number[], at: number, better: (a: number, b: number) => boolean): void {
  let i = at;
  const item = heap[i] ?? 0;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent] ?? 0;
    if (!better(p, item)) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = item;
}

function siftDown(heap: number[], at: number, better: (a: number, b: number) => boolean): void {
  const n = heap.length;
  let i = at;
  const item = heap[i] ?? 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    let worst = left;
    if (right < n && better(heap[left] ?? 0, heap[right] ?? 0)) worst = right;
    const w = heap[worst] ?? 0;
    if (!better(item, w)) break;
    heap[i] = w;
    i = worst;
  }
  heap[i] = item;
}
