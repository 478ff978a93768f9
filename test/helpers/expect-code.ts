/**
 * The one way tests read a refusal (docs/ARCHITECTURE.md §Habits: tests assert the code). Every
 * error of this repository carries a stable string `code` (`UpdateError`, `ServerError`,
 * `ProtocolError`, `TrustError`, ...); these helpers run a call, catch what it throws and hand
 * back that code, so a test says `expectCode(() => parse(bytes), 'BAD_JSON')`.
 *
 * `classes` narrows what counts: an error of any other class comes back as
 * `UNEXPECTED <name>: <message>`, which no expected code equals, so the test fails and says why.
 */
import { expect } from 'vitest';

type ErrorClass = abstract new (...args: never[]) => Error;

/** What a refusal carried. */
export interface Refusal {
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
  readonly error: unknown;
}

function readRefusal(error: unknown, classes: readonly ErrorClass[]): Refusal {
  const e = error as { code?: unknown; message?: unknown; details?: unknown; name?: unknown };
  const wanted = classes.length === 0 || classes.some((c) => error instanceof c);
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (!wanted || typeof e?.code !== 'string') {
    const name = typeof e?.name === 'string' ? e.name : typeof error;
    return { code: `UNEXPECTED ${name}: ${message}`, message, error };
  }
  return { code: e.code, message, details: e.details, error };
}

/** The code `run` threw, or undefined when it returned. */
export function codeOf(run: () => unknown, ...classes: ErrorClass[]): string | undefined {
  try {
    run();
  } catch (error) {
    return readRefusal(error, classes).code;
  }
  return undefined;
}

/** The code a promise (or an async call) rejected with, or undefined when it resolved. */
export async function codeOfAsync(
  run: Promise<unknown> | (() => Promise<unknown>),
  ...classes: ErrorClass[]
): Promise<string | undefined> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (error) {
    return readRefusal(error, classes).code;
  }
  return undefined;
}

/** The whole refusal `run` threw; fails the test when it returned instead. */
export function refusalOf(run: () => unknown, ...classes: ErrorClass[]): Refusal {
  try {
    run();
  } catch (error) {
    return readRefusal(error, classes);
  }
  throw new Error('expected a refusal, but the call returned');
}

/** The whole refusal a promise rejected with; fails the test when it resolved instead. */
export async function refusalOfAsync(
  run: Promise<unknown> | (() => Promise<unknown>),
  ...classes: ErrorClass[]
): Promise<Refusal> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (error) {
    return readRefusal(error, classes);
  }
  throw new Error('expected a refusal, but the call resolved');
}

/** Asserts that `run` throws a refusal with `code`. */
export function expectCode(run: () => unknown, code: string, ...classes: ErrorClass[]): void {
  expect(refusalOf(run, ...classes).code).toBe(code);
}

/** Asserts that a promise (or an async call) rejects with a refusal with `code`. */
export async function expectCodeAsync(
  run: Promise<unknown> | (() => Promise<unknown>),
  code: string,
  ...classes: ErrorClass[]
): Promise<void> {
  expect((await refusalOfAsync(run, ...classes)).code).toBe(code);
}
