/**
 * The fenced code blocks of one section of a Markdown file, in order, so that a test can run a
 * README's examples as written (test/integration/readme-qa.test.ts). A section runs from its
 * heading to the next heading of the same or a higher level.
 */

export interface CodeBlock {
  /** The info string's first word: `sh`, `ts`, `json`, ... */
  readonly lang: string;
  readonly text: string;
  /** For a block whose first line is `// PATH` (a file of the example): that path. */
  readonly file: string | undefined;
}

export function sectionBlocks(markdown: string, heading: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((line) => line.trim() === heading);
  if (at < 0) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)?.[0].length ?? 1;
  const blocks: CodeBlock[] = [];
  let open: { lang: string; lines: string[] } | undefined;
  for (const line of lines.slice(at + 1)) {
    if (open !== undefined) {
      if (line.startsWith('```')) {
        const text = `${open.lines.join('\n')}\n`;
        const file = /^\/\/ (\S+)$/.exec(open.lines[0] ?? '')?.[1];
        blocks.push({ lang: open.lang, text, file });
        open = undefined;
      } else open.lines.push(line);
      continue;
    }
    const hashes = /^(#+) /.exec(line)?.[1]?.length;
    if (hashes !== undefined && hashes <= level) break;
    if (line.startsWith('```'))
      open = { lang: line.slice(3).trim().split(/\s/)[0] ?? '', lines: [] };
  }
  return blocks;
}
