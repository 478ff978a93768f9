/**
 * The flag scanner shared by the server's command lines (main-args.ts, trust-args.ts): words
 * split by node:util parseArgs, then checked token by token so every refusal is a UsageError
 * with the flag's name (docs/SERVER.md §Run it).
 */
import { parseArgs as parseArgv } from 'node:util';
import { errorClass } from '../server-error.js';
import { closestOption } from '#shared/closest-option.js';

/** A command line that cannot be run: main.ts prints it with the usage and exits 2. */
export const UsageError = errorClass('UsageError', 'USAGE');
export type UsageError = InstanceType<typeof UsageError>;

/** A flag's kind; `multiple` flags may be given more than once (see `scan`'s `lists`). */
export type OptionSpec = Readonly<
  Record<string, { readonly type: 'string' | 'boolean'; readonly multiple?: boolean }>
>;

/** An integer flag in [min, max]; `why` explains the bound in the refusal. */
export function int(flag: string, text: string, min: number, max: number, why = ''): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} expects an integer from ${min} to ${max}${why}, got "${text}"`);
  }
  return Number(text);
}

export function httpUrl(flag: string, text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError(`${flag} expects an http(s) URL, got "${text}"`);
}

/**
 * Splits argv into flag values (`--x v` or `--x=v`) and positionals with node:util parseArgs.
 * Its lenient mode with tokens is used because strict mode lets a repeated flag win silently
 * and refuses a value that starts with a dash (`--port -1`, which must reach the range check);
 * the walk over the tokens refuses, in argv order: an unknown flag, a value given to a boolean
 * flag, a missing value and a repeated flag. Short options are not flags here: `-x` stays a word.
 */
export function scan(
  argv: readonly string[],
  options: OptionSpec,
): { flags: Map<string, string>; lists: Map<string, string[]>; rest: string[] } {
  const { tokens } = parseArgv({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const rest: string[] = [];
  let lastWord = -1;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      rest.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') throw new UsageError('unknown option --');
    if (!token.rawName.startsWith('--')) {
      // `-abc` yields one token per letter, all with the index of the one word.
      if (token.index !== lastWord) rest.push(argv[token.index] ?? token.rawName);
      lastWord = token.index;
      continue;
    }
    const name = `--${token.name}`;
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (spec === undefined) {
      // A typo is answered with the nearest known flag (src/shared/closest-option.ts).
      const near = closestOption(
        name,
        Object.keys(options).map((o) => `--${o}`),
      );
      throw new UsageError(
        `unknown option ${name}${near === undefined ? '' : ` (did you mean ${near}?)`}`,
      );
    }
    let value: string;
    if (spec.type === 'boolean') {
      if (token.inlineValue === true) throw new UsageError(`${name} takes no value`);
      value = 'true';
    } else {
      if (token.value === undefined) throw new UsageError(`${name} needs a value`);
      value = token.value;
    }
    if (spec.multiple === true) {
      lists.set(name, [...(lists.get(name) ?? []), value]);
      continue;
    }
    if (flags.has(name)) throw new UsageError(`${name} is given twice`);
    flags.set(name, value);
  }
  return { flags, lists, rest };
}

export function take(flags: Map<string, string>, name: string): string | undefined {
  const v = flags.get(name);
  flags.delete(name);
  return v;
}

export function refuseLeftovers(flags: Map<string, string>, rest: readonly string[]): void {
  const unknown = [...flags.keys()][0];
  if (unknown !== undefined) throw new UsageError(`unknown option ${unknown}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0] ?? ''}"`);
}

export function nonEmpty(flag: string, value: string): string {
  if (value.length === 0) throw new UsageError(`${flag} needs a non-empty value`);
  return value;
}
