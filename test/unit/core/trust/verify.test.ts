import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { pinKeys, verifyManifest } from '#core/trust/verify.js';
import { encodeManifest, signEnvelope } from '#protocol';
import { envelopeBytes, manifestOf, testKey, text } from '#test/fakes.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';
const codeOf = (run: () => unknown): string | undefined => codeOfAny(run, UpdateError);

const key = testKey();
const other = testKey();
const files = [{ name: 'app.bin', content: text('hello') }];
const MAX = 1024 * 1024;

function envelopeJson(bytes: Uint8Array): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
}

describe('verifyManifest', () => {
  it('accepts a manifest signed by the pinned key and reports its payload digest', () => {
    const bytes = envelopeBytes(manifestOf('1.0.0', files), key);
    const verified = verifyManifest(bytes, pinKeys([key.hex]), MAX);
    expect(verified.manifest.registry_version).toBe('1.0.0');
    expect(verified.setId).toMatch(/^[0-9a-f]{64}$/);
    expect(verified.envelope).toBe(bytes);
  });

  it('accepts a signature by any one of several pinned keys (rotation)', () => {
    const bytes = envelopeBytes(manifestOf('1.0.0', files), key);
    expect(verifyManifest(bytes, pinKeys([other.hex, key.hex]), MAX).keyid).toBe(
      pinKeys([key.hex])[0]?.keyid,
    );
  });

  it('refuses a signature under an unpinned keyid (UNKNOWN_KEY)', () => {
    const bytes = envelopeBytes(manifestOf('1.0.0', files), other);
    expect(codeOf(() => verifyManifest(bytes, pinKeys([key.hex]), MAX))).toBe('UNKNOWN_KEY');
  });

  it('names the keyids seen and the keyids pinned in an UNKNOWN_KEY', () => {
    const bytes = envelopeBytes(manifestOf('1.0.0', files), other);
    const pinned = pinKeys([key.hex]);
    const seen = pinKeys([other.hex]);
    let thrown: unknown;
    try {
      verifyManifest(bytes, pinned, MAX);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'UNKNOWN_KEY',
      details: { keyids_seen: [seen[0]?.keyid], keyids_pinned: [pinned[0]?.keyid] },
    });
    expect((thrown as Error).message).toContain(seen[0]?.keyid.slice(0, 16));
    expect((thrown as Error).message).toContain(pinned[0]?.keyid.slice(0, 16));
  });

  it('refuses a signature by another key that claims the pinned keyid (SIGNATURE_INVALID)', () => {
    const env = envelopeJson(envelopeBytes(manifestOf('1.0.0', files), other));
    const sigs = env['signatures'] as { keyid: string; sig: string }[];
    const forged = {
      ...env,
      signatures: [{ keyid: pinKeys([key.hex])[0]?.keyid, sig: sigs[0]?.sig }],
    };
    expect(
      codeOf(() => verifyManifest(text(JSON.stringify(forged)), pinKeys([key.hex]), MAX)),
    ).toBe('SIGNATURE_INVALID');
  });

  it('refuses a tampered payload (SIGNATURE_INVALID)', () => {
    const env = envelopeJson(envelopeBytes(manifestOf('1.0.0', files), key));
    const payload = Buffer.from(env['payload'] as string, 'base64')
      .toString()
      .replace('1.0.0', '9.0.0');
    const tampered = { ...env, payload: Buffer.from(payload).toString('base64') };
    expect(
      codeOf(() => verifyManifest(text(JSON.stringify(tampered)), pinKeys([key.hex]), MAX)),
    ).toBe('SIGNATURE_INVALID');
  });

  it('checks the signature before parsing: an unsigned malformed payload is SIGNATURE_INVALID', () => {
    const env = envelopeJson(envelopeBytes(manifestOf('1.0.0', files), key));
    const tampered = { ...env, payload: Buffer.from('not json').toString('base64') };
    expect(
      codeOf(() => verifyManifest(text(JSON.stringify(tampered)), pinKeys([key.hex]), MAX)),
    ).toBe('SIGNATURE_INVALID');
  });

  it('refuses an envelope that is not JSON (ENVELOPE_MALFORMED)', () => {
    expect(codeOf(() => verifyManifest(text('<html>'), pinKeys([key.hex]), MAX))).toBe(
      'ENVELOPE_MALFORMED',
    );
  });

  it('refuses a correctly signed payload of another type (WRONG_PAYLOAD_TYPE)', () => {
    const payload = encodeManifest(manifestOf('1.0.0', files));
    const env = signEnvelope(payload, key.secretKey, key.publicKey, 'application/json');
    expect(codeOf(() => verifyManifest(text(JSON.stringify(env)), pinKeys([key.hex]), MAX))).toBe(
      'WRONG_PAYLOAD_TYPE',
    );
  });

  it('refuses a signed payload that is not a manifest (MANIFEST_MALFORMED)', () => {
    const env = signEnvelope(text('{"hello":1}'), key.secretKey, key.publicKey);
    expect(codeOf(() => verifyManifest(text(JSON.stringify(env)), pinKeys([key.hex]), MAX))).toBe(
      'MANIFEST_MALFORMED',
    );
  });

  it('refuses a signed manifest with an unsafe name (UNSAFE_NAME)', () => {
    const m = manifestOf('1.0.0', files);
    const bad = { ...m, artifacts: [{ ...m.artifacts[0]!, name: '../evil' }] };
    expect(codeOf(() => verifyManifest(envelopeBytes(bad, key), pinKeys([key.hex]), MAX))).toBe(
      'UNSAFE_NAME',
    );
  });

  it('refuses names that differ only by case (UNSAFE_NAME)', () => {
    const m = manifestOf('1.0.0', [
      { name: 'A.txt', content: text('a') },
      { name: 'a.txt', content: text('b') },
    ]);
    expect(codeOf(() => verifyManifest(envelopeBytes(m, key), pinKeys([key.hex]), MAX))).toBe(
      'UNSAFE_NAME',
    );
  });

  it('refuses a malformed digest (BAD_DIGEST)', () => {
    const m = manifestOf('1.0.0', files);
    const bad = { ...m, artifacts: [{ ...m.artifacts[0]!, sha256: 'ABC' }] };
    expect(codeOf(() => verifyManifest(envelopeBytes(bad, key), pinKeys([key.hex]), MAX))).toBe(
      'BAD_DIGEST',
    );
  });

  it('refuses bytes over the manifest limit before parsing (MANIFEST_TOO_LARGE)', () => {
    const bytes = envelopeBytes(manifestOf('1.0.0', files), key);
    expect(codeOf(() => verifyManifest(bytes, pinKeys([key.hex]), bytes.length - 1))).toBe(
      'MANIFEST_TOO_LARGE',
    );
  });

  it('refuses to run without a pinned key (NO_PINNED_KEY)', () => {
    const bytes = envelopeBytes(manifestOf('1.0.0', files), key);
    expect(codeOf(() => verifyManifest(bytes, [], MAX))).toBe('NO_PINNED_KEY');
  });
});

describe('pinKeys', () => {
  it('refuses an empty key list (CONFIG_INVALID)', () => {
    expect(codeOf(() => pinKeys([]))).toBe('CONFIG_INVALID');
  });

  it('refuses a key that is not 64 lowercase hex (CONFIG_INVALID)', () => {
    expect(codeOf(() => pinKeys([key.hex.toUpperCase()]))).toBe('CONFIG_INVALID');
  });
});
