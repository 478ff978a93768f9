/**
 * The config validator's tools (server-config.ts): every refusal is a ConfigError
 * (CONFIG_INVALID) carrying the source and the JSON path of the value at hand
 * (docs/SERVER.md §Config file).
 */
import { errorClass } from '../server-error.js';

/** A config that cannot be used; the server does not start. */
export const ConfigError = errorClass('ConfigError', 'CONFIG_INVALID');
export type ConfigError = InstanceType<typeof ConfigError>;

export type Obj = Record<string, unknown>;

/** Validation with the JSON path of the value at hand in every refusal. */
export class Checker {
  constructor(readonly source: string) {}

  fail(path: string, message: string): never {
    throw new ConfigError(`${this.source}: ${path}: ${message}`);
  }

  object(value: unknown, path: string, allowed: readonly string[]): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(path, 'must be a JSON object');
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        this.fail(
          `${path}${member(key)}`,
          `unknown field (allowed: ${allowed.filter((k) => k !== '$schema').join(', ')})`,
        );
      }
    }
    return value as Obj;
  }

  map(value: unknown, path: string, max: number): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(path, 'must be a JSON object');
    }
    if (Object.keys(value).length > max) this.fail(path, `at most ${max} entries`);
    return value as Obj;
  }

  list(value: unknown, path: string, max: number): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'must be an array');
    if (value.length > max) this.fail(path, `at most ${max} entries`);
    return value;
  }

  string(value: unknown, path: string): string {
    if (typeof value !== 'string' || value.length === 0)
      this.fail(path, 'must be a non-empty string');
    return value;
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.fail(path, 'must be true or false');
    return value;
  }

  int(value: unknown, path: string, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(path, `must be an integer from ${min} to ${max}`);
    }
    return value;
  }
}

/** `.name` for identifiers, `["odd name"]` otherwise. */
export function member(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
