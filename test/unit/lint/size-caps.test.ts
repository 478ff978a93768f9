/**
 * The size caps of eslint.config.mjs (docs/ARCHITECTURE.md §Habits): product code keeps files
 * to 300 lines and functions to 60, blank lines and comments not counted; tests and benches
 * are exempt. Each cap is taken from the repository's config and fired on a deliberate
 * violation.
 */
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const CAPS = ['max-lines', 'max-lines-per-function'] as const;

/** The two caps as the repository's config sets them for `file`. */
async function capsFor(file: string): Promise<Linter.RulesRecord> {
  const config = (await new ESLint().calculateConfigForFile(file)) as Linter.Config;
  const rules = config.rules ?? {};
  const caps: Linter.RulesRecord = {};
  for (const rule of CAPS) {
    const setting = rules[rule];
    if (setting !== undefined) caps[rule] = setting;
  }
  return caps;
}

function fired(rules: Linter.RulesRecord, text: string): string[] {
  const config = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules }];
  return new Linter({ configType: 'flat' })
    .verify(text, config as Linter.Config[], 'sample.ts')
    .filter((m) => m.severity === 2)
    .map((m) => m.ruleId ?? 'fatal');
}

const statements = (n: number): string =>
  Array.from({ length: n }, (_, i) => `  const v${i} = ${i};\n  // why ${i}\n`).join('\n');

describe('size caps', () => {
  it('a function of 61 counted lines is refused in src/, 58 pass', async () => {
    const rules = await capsFor('src/core/errors.ts');
    expect(fired(rules, `export function f(): void {\n${statements(59)}}\n`)).toEqual([
      'max-lines-per-function',
    ]);
    expect(fired(rules, `export function f(): void {\n${statements(56)}}\n`)).toEqual([]);
  });

  it('a file of 301 counted lines is refused in server/src/', async () => {
    const rules = await capsFor('server/src/server-error.ts');
    const file = Array.from({ length: 301 }, (_, i) => `export const c${i} = ${i}; // ${i}`);
    expect(fired(rules, `${file.join('\n\n')}\n`)).toEqual(['max-lines']);
    expect(fired(rules, `${file.slice(1).join('\n\n')}\n`)).toEqual([]);
  });

  it('tests and benches are exempt', async () => {
    expect(await capsFor('test/unit/lint/size-caps.test.ts')).toEqual({});
    expect(await capsFor('bench/chain-active.ts')).toEqual({});
  });
});
