/**
 * The type-aware gates of eslint.config.mjs (docs/ARCHITECTURE.md §Habits) fire on a deliberate
 * violation: a switch over a union that forgets a member. The fixture lives in a folder that
 * `npm run lint` ignores, so only this test lints it.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const FIXTURE = 'test/fixtures/lint/switch-not-exhaustive.ts';

describe('type-aware gates', () => {
  it('switch-exhaustiveness-check refuses a switch that misses a union member', async () => {
    const eslint = new ESLint({
      ignore: false,
      ruleFilter: ({ ruleId }) => ruleId === '@typescript-eslint/switch-exhaustiveness-check',
    });
    const [result] = await eslint.lintFiles([FIXTURE]);
    const fired = (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatch(/switch-exhaustiveness-check.*amber/);
    // Type-aware linting builds the whole project's program: 3.5 s on a quiet machine, over
    // 30 s on a loaded CI machine, so this one test gets a wider limit than the default.
  }, 120_000);
});
