/**
 * Signing and building TUF metadata (src/protocol/tuf/sign.ts, build.ts): what we sign parses
 * with our own strict parser and verifies under the threshold it names, and @tufjs/models (an
 * independent implementation) verifies the same signatures.
 */
import { Metadata, MetadataKind, type Root } from '@tufjs/models';
import { describe, expect, it } from 'vitest';
import { tuf } from '#protocol';
import { newKey } from '#test/trust-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00.900Z');
type ModelsJson = Parameters<typeof Root.fromJSON>[0];
const modelsRoot = (bytes: Uint8Array) =>
  Metadata.fromJSON(MetadataKind.Root, JSON.parse(new TextDecoder().decode(bytes)) as ModelsJson);
const signer = (key: ReturnType<typeof newKey>): tuf.TufSigner => ({
  publicHex: key.hex,
  sign: key.sign,
});

describe('TUF metadata we sign', () => {
  const root = [newKey(), newKey()];
  const online = newKey();
  const signed = tuf.buildRoot({
    version: 1,
    expiresMs: T0,
    root: { keys: root.map((k) => k.hex), threshold: 2 },
    targets: { keys: [root[0]!.hex], threshold: 1 },
    snapshot: { keys: [online.hex], threshold: 1 },
    timestamp: { keys: [online.hex], threshold: 1 },
  });
  const bytes = tuf.signMetadata(signed, root.map(signer));

  it('is canonical JSON whose root meets its own 2-of-2 threshold', () => {
    const envelope = tuf.parseEnvelope(bytes, 'root');
    expect(envelope.signed.expires).toBe('2026-01-01T00:00:00Z');
    expect(envelope.signed.consistentSnapshot).toBe(true);
    expect(envelope.signed.specVersion).toMatch(/^1\.0\.\d+$/);
    expect(
      tuf.countValidSignatures(envelope, envelope.signed.keys, envelope.signed.roles.root),
    ).toBe(2);
    expect(new TextDecoder().decode(bytes)).toBe(
      new TextDecoder().decode(tuf.canonicalJson(tuf.parseStrictJson(bytes))),
    );
  });

  it('names keys by the SHA-256 of their canonical key object (TUF spec §4.2)', () => {
    const envelope = tuf.parseEnvelope(bytes, 'root');
    expect(envelope.signed.roles.timestamp.keyids).toEqual([tuf.tufKeyId(online.hex)]);
    expect(tuf.tufKeyId(online.hex)).not.toBe(online.keyid);
  });

  it('verifies in @tufjs/models, and one signature short of the threshold does not', () => {
    const metadata = modelsRoot(bytes);
    expect(() => metadata.verifyDelegate('root', metadata)).not.toThrow();
    const short = tuf.signMetadata(signed, [signer(root[0]!)]);
    const one = modelsRoot(short);
    expect(() => one.verifyDelegate('root', one)).toThrow();
  });

  it('co-signs: addSignatures adds a key and never doubles one', () => {
    const first = tuf.signMetadata(signed, [signer(root[0]!)]);
    const doc = JSON.parse(new TextDecoder().decode(first)) as {
      signed: tuf.JsonObject;
      signatures: tuf.JsonObject[];
    };
    const both = tuf.addSignatures(doc, [signer(root[1]!), signer(root[0]!)]);
    const envelope = tuf.parseEnvelope(both, 'root');
    expect(envelope.signatures).toHaveLength(2);
    expect(
      tuf.countValidSignatures(envelope, envelope.signed.keys, envelope.signed.roles.root),
    ).toBe(2);
  });

  it('builds targets with length, sha256 and custom, and timestamp with the snapshot hashes', () => {
    const targets = tuf.buildTargets(
      { version: 3, expiresMs: T0, custom: { registry_version: '1.0.0' } },
      [{ path: 'a/b.bin', length: 5, sha256: 'ab'.repeat(32), custom: { x: 1 } }],
    );
    const parsed = tuf.parseEnvelope(tuf.signMetadata(targets, [signer(online)]), 'targets');
    const file = parsed.signed.targets.get('a/b.bin');
    expect(file?.length).toBe(5);
    expect(file?.hashes.get('sha256')).toBe('ab'.repeat(32));
    expect(file?.custom).toEqual({ x: 1 });
    const ts = tuf.buildTimestamp(
      { version: 1, expiresMs: T0 },
      { version: 2, length: 9, sha256: 'cd'.repeat(32) },
    );
    const parsedTs = tuf.parseEnvelope(tuf.signMetadata(ts, [signer(online)]), 'timestamp');
    expect(parsedTs.signed.snapshotMeta).toMatchObject({ version: 2, length: 9 });
  });

  it('writes a string with control characters (notes with line feeds) as valid JSON', () => {
    const notes = '# 2.0.0\n\n- tabs\tand lines\r\n';
    const targets = tuf.buildTargets(
      { version: 1, expiresMs: T0, custom: { registry_version: '2.0.0', notes } },
      [],
    );
    const file = tuf.signMetadata(targets, [signer(root[0]!)]);
    const text = new TextDecoder().decode(file);
    expect(text).toContain(String.raw`"# 2.0.0\u000a\u000a- tabs\u0009and lines\u000d\u000a"`);
    // JSON.parse (tuf-js; python-tuf's json.loads alike) reads it back, and the signature over
    // the canonical form (raw characters, TUF spec §4.2) verifies there and in our parser.
    const json = JSON.parse(text) as Parameters<typeof Metadata.fromJSON>[1];
    const models = Metadata.fromJSON(MetadataKind.Targets, json);
    expect(() => modelsRoot(bytes).verifyDelegate('targets', models)).not.toThrow();
    const envelope = tuf.parseEnvelope(file, 'targets');
    const rootEnvelope = tuf.parseEnvelope(bytes, 'root');
    const { keys, roles } = rootEnvelope.signed;
    expect(tuf.countValidSignatures(envelope, keys, roles.targets)).toBe(1);
  });
});
