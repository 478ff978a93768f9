/**
 * Release notes as text-only HTML (docs/DESKTOP.md "Update policy"): a tiny Markdown subset
 * (paragraphs, headings shown as strong lines, lists, emphasis, strong, inline code, fenced
 * code). Every character of the notes reaches the page through `textContent`, never as markup:
 * raw HTML stays visible text, a link keeps its words and drops its address (nothing
 * navigates), and no element gets an attribute. The notes are signed (docs/PROTOCOL.md §2.2),
 * but signed is not the same as harmless to render.
 */

export type Inline = { readonly kind: 'text' | 'em' | 'strong' | 'code'; readonly text: string };

export type Block =
  | { readonly kind: 'p' | 'heading'; readonly inlines: readonly Inline[] }
  | { readonly kind: 'ul' | 'ol'; readonly items: readonly (readonly Inline[])[] }
  | { readonly kind: 'pre'; readonly text: string };

/** Blocks shown at most; the rest is cut (the notes' own cap is 16 KiB). */
export const MAX_NOTE_BLOCKS = 200;

const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(```|~~~)/;
/**
 * `code`, **strong** or __strong__, *em* or _em_, and [words](address) whose address (one
 * level of parentheses inside) is dropped.
 */
const INLINE =
  /`([^`]+)`|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s](?:[^*]*[^*\s])?)\*|_([^_\s](?:[^_]*[^_\s])?)_|\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g;

/** Splits one line of text into its inline pieces. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index;
    if (at > last) out.push({ kind: 'text', text: text.slice(last, at) });
    const [, code, strong1, strong2, em1, em2, link] = match;
    if (code !== undefined) out.push({ kind: 'code', text: code });
    else if ((strong1 ?? strong2) !== undefined) {
      out.push({ kind: 'strong', text: strong1 ?? strong2 ?? '' });
    } else if ((em1 ?? em2) !== undefined) out.push({ kind: 'em', text: em1 ?? em2 ?? '' });
    else out.push({ kind: 'text', text: link ?? '' });
    last = at + match[0].length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

/** A list block being gathered, or a paragraph's lines. */
interface Open {
  kind: 'p' | 'ul' | 'ol' | 'pre' | null;
  lines: string[];
}

function close(open: Open, blocks: Block[]): void {
  const { kind, lines } = open;
  if (kind === 'p') blocks.push({ kind: 'p', inlines: parseInline(lines.join(' ')) });
  else if (kind === 'ul' || kind === 'ol') {
    blocks.push({ kind, items: lines.map((line) => parseInline(line)) });
  } else if (kind === 'pre') blocks.push({ kind: 'pre', text: lines.join('\n') });
  open.kind = null;
  open.lines = [];
}

/** One line outside a fenced block: starts, continues or ends a block. */
function takeLine(line: string, open: Open, blocks: Block[]): void {
  const bullet = BULLET.exec(line);
  const numbered = bullet === null ? NUMBERED.exec(line) : null;
  const heading = HEADING.exec(line);
  if (line.trim() === '') return close(open, blocks);
  if (heading !== null) {
    close(open, blocks);
    blocks.push({ kind: 'heading', inlines: parseInline(heading[1] ?? '') });
    return;
  }
  const item = bullet ?? numbered;
  if (item !== null) {
    const kind = bullet !== null ? 'ul' : 'ol';
    if (open.kind !== kind) close(open, blocks);
    open.kind = kind;
    open.lines.push(item[1] ?? '');
    return;
  }
  // A line under a list item continues it; otherwise it belongs to the paragraph.
  if ((open.kind === 'ul' || open.kind === 'ol') && open.lines.length > 0) {
    open.lines[open.lines.length - 1] = `${open.lines.at(-1) ?? ''} ${line.trim()}`;
    return;
  }
  if (open.kind !== 'p') close(open, blocks);
  open.kind = 'p';
  open.lines.push(line.trim());
}

/** Parses the notes into blocks (pure; at most MAX_NOTE_BLOCKS). */
export function parseNotes(markdown: string): Block[] {
  const blocks: Block[] = [];
  const open: Open = { kind: null, lines: [] };
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) {
      if (open.kind === 'pre') close(open, blocks);
      else {
        close(open, blocks);
        open.kind = 'pre';
      }
      continue;
    }
    if (open.kind === 'pre') open.lines.push(line);
    else takeLine(line, open, blocks);
    if (blocks.length >= MAX_NOTE_BLOCKS) return blocks.slice(0, MAX_NOTE_BLOCKS);
  }
  close(open, blocks);
  return blocks.slice(0, MAX_NOTE_BLOCKS);
}

/** The slice of Document the renderer uses (tests pass a recording fake). */
export interface NotesDocument {
  createElement(tag: 'p' | 'ul' | 'ol' | 'li' | 'em' | 'strong' | 'code' | 'pre'): NotesElement;
  createTextNode(text: string): unknown;
}

export interface NotesElement {
  textContent: string | null;
  append(...nodes: unknown[]): void;
}

function inlineNodes(doc: NotesDocument, inlines: readonly Inline[]): unknown[] {
  return inlines.map((inline) => {
    if (inline.kind === 'text') return doc.createTextNode(inline.text);
    const element = doc.createElement(inline.kind);
    element.textContent = inline.text;
    return element;
  });
}

function blockElement(doc: NotesDocument, block: Block): NotesElement {
  if (block.kind === 'pre') {
    const pre = doc.createElement('pre');
    const code = doc.createElement('code');
    code.textContent = block.text;
    pre.append(code);
    return pre;
  }
  if ('items' in block) {
    const list = doc.createElement(block.kind);
    for (const item of block.items) {
      const li = doc.createElement('li');
      li.append(...inlineNodes(doc, item));
      list.append(li);
    }
    return list;
  }
  const p = doc.createElement('p');
  const nodes = inlineNodes(doc, block.inlines);
  if (block.kind === 'heading') {
    // A heading inside the card would break its outline: a strong line says the same.
    const strong = doc.createElement('strong');
    strong.append(...nodes);
    p.append(strong);
  } else p.append(...nodes);
  return p;
}

/** The notes as elements, to put in their container (which the caller empties first). */
export function renderNotes(doc: NotesDocument, markdown: string): NotesElement[] {
  return parseNotes(markdown).map((block) => blockElement(doc, block));
}
