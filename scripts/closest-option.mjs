// The known option nearest to a mistyped one, by edit distance, for the one-line refusal of an
// unknown option (`npm start`, scripts/start.mjs; the CLI's twin is src/cli/closest-option.ts).

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}

/** The nearest of `known`, when it is near enough to be a typo (at most a third changed). */
export function closestOption(option, known) {
  let best;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = editDistance(option, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= Math.max(2, Math.floor(option.length / 3)) ? best : undefined;
}

/** `unknown option '--bogus'` and, when one is near, `(did you mean '--base-url'?)`. */
export function unknownOptionMessage(option, known) {
  const near = closestOption(option, known);
  return `unknown option '${option}'${near === undefined ? '' : ` (did you mean '${near}'?)`}`;
}
