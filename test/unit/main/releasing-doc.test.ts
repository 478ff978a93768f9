/**
 * docs/RELEASING.md is walked: every command and every environment variable it names exists.
 * - `npm run X`: a script of package.json;
 * - `npx electron-builder …`: each `--flag` is an option of electron-builder 26.17's CLI, each
 *   `-c.a.b=` a path of its configuration schema;
 * - each variable (`CSC_LINK`, …) is read by electron-builder (app-builder-lib) or by this
 *   repository's code;
 * - each repository path it names exists;
 * - any other program is one of the OS tools the text says where to run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);
const doc = readFileSync(join(ROOT, 'docs/RELEASING.md'), 'utf8');
const builderLib = dirname(require.resolve('app-builder-lib/package.json'));
const builderCli = readFileSync(require.resolve('electron-builder/out/builder.js'), 'utf8');
const schema = JSON.parse(readFileSync(join(builderLib, 'scheme.json'), 'utf8')) as Schema;

interface Schema {
  definitions: Record<string, SchemaNode>;
  properties: Record<string, SchemaNode>;
}
interface SchemaNode {
  $ref?: string;
  anyOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
}

/** OS tools the text names, each run where the text says (not on this machine). */
const OS_TOOLS = new Set(['spctl', 'signtool', 'sudo', 'mkdir', 'cp', 'export', 'codesign']);

function filesUnder(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(path, e.name)) : [join(path, e.name)],
  );
}

/** Inline code spans and fenced blocks: the text's commands, variables and paths. */
function codeTexts(): string[] {
  const blocks = [...doc.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const prose = doc.replace(/```[a-z]*\n[\s\S]*?```/g, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
  return [...blocks, ...spans];
}

/** Command lines of the fenced blocks, continuation lines joined. */
function commandLines(): string[] {
  return [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => (m[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function schemaHas(path: readonly string[]): boolean {
  const resolveNode = (node: SchemaNode): SchemaNode[] => {
    if (node.$ref !== undefined) {
      const target = schema.definitions[node.$ref.replace('#/definitions/', '')];
      return target === undefined ? [] : resolveNode(target);
    }
    if (node.anyOf !== undefined) return node.anyOf.flatMap(resolveNode);
    return [node];
  };
  let nodes: SchemaNode[] = [{ properties: schema.properties }];
  for (const key of path) {
    nodes = nodes.flatMap((n) => {
      const child = n.properties?.[key];
      return child === undefined ? [] : resolveNode(child);
    });
    if (nodes.length === 0) return false;
  }
  return true;
}

describe('docs/RELEASING.md', () => {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;

  it('names only npm scripts that package.json has', () => {
    const named = [...doc.matchAll(/npm run (?:-s )?([a-z][a-z:-]*)/g)].map((m) => m[1] ?? '');
    expect(named.length).toBeGreaterThan(3);
    for (const name of named) expect(Object.keys(scripts), name).toContain(name);
  });

  it('names only electron-builder options its CLI has and config paths its schema has', () => {
    const calls = commandLines().filter((line) => line.startsWith('npx electron-builder'));
    const inProse = [...doc.matchAll(/`npx electron-builder ([^`]+)`/g)].map(
      (m) => `npx electron-builder ${m[1] ?? ''}`,
    );
    expect(calls.length + inProse.length).toBeGreaterThan(1);
    for (const call of [...calls, ...inProse]) {
      for (const flag of call.matchAll(/(?:^|\s)--([a-z][a-z-]*)/g)) {
        expect(builderCli, `--${flag[1] ?? ''}`).toContain(`.option("${flag[1] ?? ''}"`);
      }
      for (const config of call.matchAll(/-c\.([A-Za-z.]+)=/g)) {
        expect(schemaHas((config[1] ?? '').split('.')), config[1]).toBe(true);
      }
    }
  });

  it('names only variables that electron-builder or this repository reads', () => {
    const variables = new Set(
      codeTexts().flatMap((text) =>
        [...text.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)].map((m) => m[1] ?? ''),
      ),
    );
    expect(variables.size).toBeGreaterThan(8);
    const sources = [
      ...filesUnder(join(builderLib, 'out')).filter((f) => f.endsWith('.js')),
      join(builderLib, 'scheme.json'),
      join(ROOT, 'scripts/build-app.mjs'),
      ...filesUnder(join(ROOT, 'src')).filter((f) => f.endsWith('.ts')),
    ].map((file) => readFileSync(file, 'utf8'));
    for (const name of variables) {
      expect(
        sources.some((text) => text.includes(name)),
        `${name} is read by nothing`,
      ).toBe(true);
    }
  });

  it('runs no program it does not account for', () => {
    for (const line of commandLines()) {
      const program = line.split(/\s+/)[0] ?? '';
      if (program === 'npm' || program === 'npx') continue;
      expect(OS_TOOLS, line).toContain(program);
    }
  });

  it('names repository paths that exist', () => {
    const paths = new Set(
      codeTexts().flatMap((text) =>
        [
          ...text.matchAll(
            /\b((?:src|test|scripts|resources|docs)\/[\w./-]*[\w/]|electron-builder\.yml)\b/g,
          ),
        ].map((m) => m[1] ?? ''),
      ),
    );
    expect(paths.size).toBeGreaterThan(2);
    for (const path of paths)
      expect(statSync(join(ROOT, path), { throwIfNoEntry: false }), path).toBeDefined();
  });
});
