// The house's doors (docs/ARCHITECTURE.md §Layout), as one ESLint rule:
//  1. a group of src/core or src/node (a folder such as src/core/trust) is entered from outside
//     only through its index.ts;
//  2. src/main is the Electron composition root: nothing outside it imports from it.
// Import names (package.json "imports": #core/…, #node/…, #main/…) and relative paths are both
// resolved to a repository path first, so neither spelling slips past.
import { posix, relative, sep } from 'node:path';

const ALIASES = [
  ['#core/', 'src/core/'],
  ['#node/', 'src/node/'],
  ['#main/', 'src/main/'],
];
const GROUP = /^src\/(core|node)\/([a-z0-9-]+)\/([^/]+)$/;

/** The repository path an import names, or undefined for a package or a built-in. */
function targetOf(fromFile, spec) {
  for (const [alias, dir] of ALIASES)
    if (spec.startsWith(alias)) return dir + spec.slice(alias.length);
  if (spec.startsWith('./') || spec.startsWith('../')) {
    return posix.normalize(posix.join(posix.dirname(fromFile), spec));
  }
  return undefined;
}

const stripExt = (path) => path.replace(/\.(js|ts|mjs|mts)$/, '');

export const doors = {
  meta: {
    type: 'problem',
    docs: { description: 'Groups are entered through their index.ts; src/main is private.' },
    schema: [],
    messages: {
      door: "'{{spec}}' reaches inside {{group}}: import it through {{group}}/index.ts (docs/ARCHITECTURE.md §Layout).",
      main: "'{{spec}}' imports from src/main, the Electron composition root: use the Electron-free src/app instead (docs/ARCHITECTURE.md §Layout).",
    },
  },
  create(context) {
    const file = relative(context.cwd, context.filename).split(sep).join('/');
    function check(node, spec) {
      if (typeof spec !== 'string') return;
      const target = targetOf(file, spec);
      if (target === undefined) return;
      if (target.startsWith('src/main/') && !file.startsWith('src/main/')) {
        context.report({ node, messageId: 'main', data: { spec } });
        return;
      }
      const m = GROUP.exec(target);
      if (!m || stripExt(m[3]) === 'index') return;
      const group = `src/${m[1]}/${m[2]}`;
      if (file.startsWith(group + '/')) return;
      context.report({ node, messageId: 'door', data: { spec, group } });
    }
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) =>
        node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export default { rules: { doors } };
