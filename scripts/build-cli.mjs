// Bundles the headless updater CLI (src/cli/main.ts) into one ESM file run by plain node, as it
// ships: no tsx or TypeScript compiler in memory (peak RSS of a large pull stays under 100 MB,
// docs/UPDATER-PROOF.md). `npm run updater` builds it (about 0.2 s) and runs it.
// Usage: node scripts/build-cli.mjs [--out FILE]   (or import { buildCli } from it)
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the CLI bundle (default dist/cli/updater.mjs) and returns its path. */
export async function buildCli(options = {}) {
  const outfile = resolve(options.outfile ?? join(root, 'dist', 'cli', 'updater.mjs'));
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    legalComments: 'none',
    // Every run parses the whole bundle before it does anything: whitespace and syntax
    // minification shrink that (a no-op check at 10,000 installed counts every ms,
    // docs/UPDATER.md §9), while names stay as written so a stack trace still reads.
    minifyWhitespace: true,
    minifySyntax: true,
    // CommonJS dependencies (semver) call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  };
  await Promise.all([
    build({ ...common, entryPoints: [join(root, 'src/cli/main.ts')], outfile }),
    // `updater serve` in its own bundle beside it, loaded only by that command, so the web
    // window and the demo registry's server stay out of every other command's memory.
    build({
      ...common,
      entryPoints: [join(root, 'src/cli/serve.ts')],
      outfile: join(dirname(outfile), 'serve.mjs'),
    }),
  ]);
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  await buildCli(at > 0 ? { outfile: process.argv[at + 1] } : {});
}
