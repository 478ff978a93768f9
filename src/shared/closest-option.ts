/**
 * The known option nearest to a mistyped one, by edit distance, so a usage error names both
 * (docs/UPDATER.md §7; the companion server's flags too, docs/SERVER.md). The `npm start` twin is scripts/closest-option.mjs (plain JavaScript,
 * run before anything is built).
 */

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The nearest of `known`, when it is near enough to be a typo (at most a third changed). */
export function closestOption(option: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = editDistance(option, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= Math.max(2, Math.floor(option.length / 3)) ? best : undefined;
}

/**
 * The message for node:util parseArgs' unknown-option error (its own advice about '--' is
 * about positionals, which this CLI takes none of that start with a dash), or undefined for
 * any other error.
 */
export function unknownOptionMessage(error: unknown, known: Iterable<string>): string | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return;
  const option = /'(-[^']*)'/.exec(error instanceof Error ? error.message : '')?.[1];
  if (option === undefined) return;
  const near = closestOption(option, known);
  return `unknown option '${option}'${near === undefined ? '' : ` (did you mean '${near}'?)`}`;
}
