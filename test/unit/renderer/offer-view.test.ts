import { describe, expect, it } from 'vitest';
import { offerTitle } from '#renderer/offer-view.js';

describe('offer title', () => {
  it('names the version and its size to download', () => {
    expect(offerTitle({ version: '2.0.0', downloadBytes: 2_500_000, notes: null })).toMatch(
      /^Version 2\.0\.0 is verified and ready to install: 2\.4 MiB to download\.$/,
    );
  });

  it('says when nothing needs downloading (everything is held already)', () => {
    expect(offerTitle({ version: '2.0.0', downloadBytes: 0, notes: null })).toBe(
      'Version 2.0.0 is verified and ready to install: nothing to download.',
    );
  });
});
