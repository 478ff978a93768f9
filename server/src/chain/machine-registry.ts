/**
 * The machine registry: id -> dense index, with names and visibility in parallel arrays so the
 * ranking can look a machine up by index without hashing. Indices are never reused until reset().
 */
import { ChainError } from './chain-error.js';

export type Visibility = 'public' | 'private';

export interface MachineInput {
  readonly id: string;
  readonly name: string;
  readonly visibility: Visibility;
}

/** Upper bound on registered machines: bounds memory; equals the largest --simulate-machines. */
export const MAX_MACHINES = 1_000_000;

// Ids are printable ASCII so that they sort the same everywhere (ties by id ascending).
const MACHINE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const MAX_NAME_CHARS = 100;

/** Returns why `id` is not a valid machine id, or undefined. */
export function machineIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'id must be a string';
  if (!MACHINE_ID.test(id))
    return 'id must be 1-64 characters of A-Z a-z 0-9 . _ : - starting with a letter or digit';
  return undefined;
}

/** Returns why `name` is not a valid machine name, or undefined. */
export function machineNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'name must be a string';
  if (name.trim().length === 0) return 'name must not be blank';
  if (name.length > MAX_NAME_CHARS) return `name must be at most ${MAX_NAME_CHARS} characters`;
  if (CONTROL.test(name)) return 'name must not contain control characters';
  if (LONE_SURROGATE.test(name)) return 'name must be well-formed Unicode';
  return undefined;
}

export class MachineRegistry {
  readonly #indexById = new Map<string, number>();
  #ids: string[] = [];
  #names: string[] = [];
  #private = new Uint8Array(1024);
  /** Bumped whenever a name or a visibility changes, so cached rankings are dropped. */
  #generation = 0;

  constructor(readonly maxMachines: number = MAX_MACHINES) {}

  get size(): number {
    return this.#ids.length;
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Adds a machine, or updates the name and visibility of an existing one (upsert).
   * @returns its index and whether it was created.
   * @example registry.upsert({ id: 'm-1', name: 'Alpha', visibility: 'public' })
   */
  upsert(input: MachineInput): { index: number; created: boolean } {
    const idProblem = machineIdProblem(input.id);
    if (idProblem !== undefined) throw new ChainError('INVALID_MACHINE_ID', idProblem);
    const nameProblem = machineNameProblem(input.name);
    if (nameProblem !== undefined) throw new ChainError('INVALID_NAME', nameProblem);
    if (input.visibility !== 'public' && input.visibility !== 'private')
      throw new ChainError('INVALID_VISIBILITY', 'visibility must be "public" or "private"');
    const isPrivate = input.visibility === 'private' ? 1 : 0;
    const existing = this.#indexById.get(input.id);
    if (existing !== undefined) {
      if (this.#names[existing] !== input.name || this.#private[existing] !== isPrivate) {
        this.#names[existing] = input.name;
        this.#private[existing] = isPrivate;
        this.#generation++;
      }
      return { index: existing, created: false };
    }
    if (this.#ids.length >= this.maxMachines)
      throw new ChainError('TOO_MANY_MACHINES', `at most ${this.maxMachines} machines`);
    const index = this.#ids.length;
    if (index >= this.#private.length) {
      const grown = new Uint8Array(this.#private.length * 2);
      grown.set(this.#private);
      this.#private = grown;
    }
    this.#ids.push(input.id);
    this.#names.push(input.name);
    this.#private[index] = isPrivate;
    this.#indexById.set(input.id, index);
    return { index, created: true };
  }

  indexOf(id: string): number | undefined {
    return this.#indexById.get(id);
  }

  idAt(index: number): string {
    return this.#ids[index] ?? '';
  }

  nameAt(index: number): string {
    return this.#names[index] ?? '';
  }

  isPrivate(index: number): boolean {
    return this.#private[index] === 1;
  }

  visibilityAt(index: number): Visibility {
    return this.isPrivate(index) ? 'private' : 'public';
  }

  clear(): void {
    this.#indexById.clear();
    this.#ids = [];
    this.#names = [];
    this.#private = new Uint8Array(1024);
    this.#generation++;
  }
}
