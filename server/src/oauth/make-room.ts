/**
 * Bounded in-memory stores (codes, grants): called only when a map is full, it drops expired
 * records, then the oldest (a Map keeps insertion order) down to 99 % of the bound, so the full
 * scan runs at most once per 1 % of new records. Fails closed: an evicted record is unknown.
 */
export function makeRoom<K, V>(map: Map<K, V>, max: number, expired: (value: V) => boolean): void {
  if (map.size < max) return;
  for (const [key, value] of map) if (expired(value)) map.delete(key);
  const target = Math.floor(max * 0.99);
  for (const key of map.keys()) {
    if (map.size <= target) break;
    map.delete(key);
  }
}
