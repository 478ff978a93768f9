import { describe, expect, it } from 'vitest';
import {
  MAX_NOTE_BLOCKS,
  parseInline,
  parseNotes,
  renderNotes,
  type NotesDocument,
  type NotesElement,
} from '#renderer/release-notes.js';

/** A recording document: elements are plain records; text nodes are strings. */
interface FakeElement extends NotesElement {
  readonly tag: string;
  readonly children: (FakeElement | string)[];
}

const fakeDoc: NotesDocument = {
  createElement(tag) {
    const element: FakeElement = {
      tag,
      children: [],
      textContent: null,
      append(...nodes) {
        element.children.push(...(nodes as (FakeElement | string)[]));
      },
    };
    return element;
  },
  createTextNode: (text) => text,
};

/** The tree as HTML-like text, escaping nothing: so raw markup would show up as tags. */
function tagsOf(node: FakeElement | string, tags: Set<string>): Set<string> {
  if (typeof node === 'string') return tags;
  tags.add(node.tag);
  for (const child of node.children) tagsOf(child, tags);
  return tags;
}

function textOf(node: FakeElement | string): string {
  if (typeof node === 'string') return node;
  return (node.textContent ?? '') + node.children.map(textOf).join('');
}

const render = (markdown: string): FakeElement[] => renderNotes(fakeDoc, markdown) as FakeElement[];

const ALLOWED = new Set(['p', 'ul', 'ol', 'li', 'em', 'strong', 'code', 'pre']);

describe('release notes (text-only Markdown subset)', () => {
  it('renders paragraphs, lists, emphasis, strong and code', () => {
    const blocks = parseNotes(
      '## 2.0.0\n\nFaster *sync* and **safer** `verify`.\nSecond line.\n\n- one\n- two\n  more\n\n1. first\n2. second\n\n```\nraw <b>\n```',
    );
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'p', 'ul', 'ol', 'pre']);
    expect(blocks[1]).toEqual({
      kind: 'p',
      inlines: [
        { kind: 'text', text: 'Faster ' },
        { kind: 'em', text: 'sync' },
        { kind: 'text', text: ' and ' },
        { kind: 'strong', text: 'safer' },
        { kind: 'text', text: ' ' },
        { kind: 'code', text: 'verify' },
        { kind: 'text', text: '. Second line.' },
      ],
    });
    expect(blocks[2]).toMatchObject({ items: [[{ text: 'one' }], [{ text: 'two more' }]] });
    expect(blocks[4]).toEqual({ kind: 'pre', text: 'raw <b>' });
  });

  const hostile: [string, string, string][] = [
    ['a script element', '<script>alert(1)</script>', '<script>alert(1)</script>'],
    [
      'an image with an onerror handler',
      '<img src=x onerror=alert(1)>',
      '<img src=x onerror=alert(1)>',
    ],
    ['a javascript: link', '[click me](javascript:alert(1))', 'click me'],
    ['an http link', 'see [the site](https://evil.example/phish)', 'see the site'],
    [
      'an iframe in a list',
      '- <iframe src="https://evil.example"></iframe>',
      '<iframe src="https://evil.example"></iframe>',
    ],
    ['markup inside code', '`<svg onload=alert(1)>`', '<svg onload=alert(1)>'],
    ['an HTML comment and entity', '<!-- x --> &lt;b&gt;', '<!-- x --> &lt;b&gt;'],
    [
      'a style element in a fence',
      '```\n<style>*{display:none}</style>\n```',
      '<style>*{display:none}</style>',
    ],
  ];
  for (const [what, markdown, shown] of hostile) {
    it(`shows ${what} as text, with only the allowed elements and no address`, () => {
      const elements = render(markdown);
      const tags = new Set<string>();
      for (const element of elements) tagsOf(element, tags);
      expect([...tags].every((tag) => ALLOWED.has(tag))).toBe(true);
      const text = elements.map(textOf).join('\n');
      expect(text).toBe(shown);
      expect(text).not.toContain('javascript:');
      expect(text).not.toContain('evil.example/phish');
    });
  }

  it('an unclosed emphasis or code stays text', () => {
    expect(parseInline('2 * 3 and `open')).toEqual([{ kind: 'text', text: '2 * 3 and `open' }]);
  });

  it('cuts very many blocks at the cap, however long the notes', () => {
    const many = Array.from({ length: MAX_NOTE_BLOCKS + 50 }, (_, i) => `p${i}`).join('\n\n');
    expect(parseNotes(many)).toHaveLength(MAX_NOTE_BLOCKS);
  });

  it('a pathological line of markers is parsed in linear-ish time', () => {
    const line = '*_'.repeat(8_000);
    const started = performance.now();
    parseInline(line);
    // Generous: this catches catastrophic backtracking (seconds), not a speed figure.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
