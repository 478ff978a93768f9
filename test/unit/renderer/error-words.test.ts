import { describe, expect, it } from 'vitest';
import { errorWords } from '../../../src/renderer/error-words.js';

describe('error codes in plain words', () => {
  it('explains a known code without jargon', () => {
    expect(errorWords('NETWORK', 'connect ECONNREFUSED 127.0.0.1:1')).toBe(
      'The registry cannot be reached. Check the network connection.',
    );
    expect(errorWords('SIGNATURE_INVALID', 'x')).toMatch(/signature/);
  });

  it("falls back to the core's message for a code it does not know", () => {
    expect(errorWords('SOMETHING_NEW', 'Something new happened.')).toBe('Something new happened.');
  });
});
