/**
 * Reading the server's own JSON state files (machines.json, freshness.json) so that a corrupt
 * one is named by path, with what is wrong and what the operator can do (docs/SERVER.md §Data
 * directory), instead of a bare "Unterminated string in JSON at position 162".
 */
import { readFile } from 'node:fs/promises';
import { errorClass } from '../server-error.js';

export const StateFileError = errorClass('StateFileError', 'STATE_FILE_INVALID');
export type StateFileError = InstanceType<typeof StateFileError>;

/** The file's JSON, undefined when it does not exist; `remedy` says what the operator can do. */
export async function readStateJson(path: string, remedy: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw stateFileError(path, `cannot be read (${(error as Error).message})`, remedy, error);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw stateFileError(path, `is not valid JSON (${(cause as Error).message})`, remedy, cause);
  }
}

/** "PATH is wrong: REMEDY" as a StateFileError. */
export function stateFileError(
  path: string,
  what: string,
  remedy: string,
  cause?: unknown,
): StateFileError {
  return new StateFileError(`${path} ${what}; ${remedy}`, cause === undefined ? {} : { cause });
}

/** `value[name]` when `value` is a JSON object, else undefined. */
export function fieldOf(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>)[name];
}
