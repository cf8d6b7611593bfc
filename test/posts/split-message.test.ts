import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discordMessageLimit, render, splitMessage, splitPieces } from '../../src/posts/split-message.ts';

const fences = (text: string) => text.split('\n').filter((line) => /^ {0,3}(```|~~~)/.test(line)).length;

/** Random Markdown: prose, long words, lists, code blocks with and without a language, emoji. */
const markdown = fc
  .array(
    fc.oneof(
      fc.lorem({ maxCount: 60, mode: 'sentences' }),
      fc.string({ minLength: 0, maxLength: 3000 }).map((word) => word.replace(/\s/g, 'x')),
      fc
        .tuple(fc.constantFrom('', 'ts', 'python', 'json'), fc.array(fc.lorem({ maxCount: 12 }), { maxLength: 120 }))
        .map(([lang, lines]) => `\`\`\`${lang}\n${lines.join('\n')}\n\`\`\``),
      fc
        .array(fc.lorem({ maxCount: 8 }), { maxLength: 30 })
        .map((items) => items.map((item) => `- ${item}`).join('\n')),
      fc.constantFrom('😀'.repeat(1500), '**bold** and `code`', '> quoted\n> more'),
      // Odd fences: long markers, tildes, a huge info string.
      fc
        .tuple(
          fc.constantFrom('````', '~~~', '`'.repeat(30), '~'.repeat(12)),
          fc.constantFrom('', 'js', 'x'.repeat(1990)),
          fc.array(fc.lorem({ maxCount: 10 }), { maxLength: 300 }),
        )
        .map(([marker, info, lines]) => `${marker}${info}\n${lines.join('\n')}\n${marker}`),
    ),
    { maxLength: 12 },
  )
  .map((blocks) => blocks.join('\n\n'));

describe('splitMessage', () => {
  it('keeps short text whole', () => {
    expect(splitMessage('hello')).toEqual(['hello']);
    expect(splitMessage('x'.repeat(discordMessageLimit))).toEqual(['x'.repeat(discordMessageLimit)]);
  });

  it('on random Markdown: pieces fit, rebuild the original, and never leave a code block open', () => {
    fc.assert(
      fc.property(markdown, (text) => {
        const pieces = splitPieces(text);
        expect(pieces.map((piece) => piece.body).join('')).toBe(text);
        for (const piece of pieces) {
          const rendered = render(piece);
          expect(rendered.length).toBeLessThanOrEqual(discordMessageLimit);
          expect(rendered.length).toBeGreaterThan(0);
          // No lone surrogate at either end of a piece.
          expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(piece.body)).toBe(false);
        }
        // Every piece but the last is balanced (the original's own balance decides the last),
        // except around a freak fence too long to reopen.
        if (!/(`|~){3,}x{1990}/.test(text))
          for (const piece of pieces.slice(0, -1)) expect(fences(render(piece)) % 2).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('ends, and fits, on fences that take most of a message', () => {
    const huge = `\`\`\`${'x'.repeat(1990)}\n${'y '.repeat(2000)}`;
    const pieces = splitMessage(huge);
    expect(pieces.join('')).toBe(huge);
    const wide = `${'`'.repeat(30)}js\n${Array.from({ length: 400 }, (_, index) => `line ${index}`).join('\n')}\n${'`'.repeat(30)}`;
    for (const piece of splitMessage(wide)) expect(piece.length).toBeLessThanOrEqual(2000);
  });

  it('closes a code block at the cut and reopens it with its language', () => {
    const code = `\`\`\`python\n${Array.from({ length: 300 }, (_, index) => `print(${index})  # line`).join('\n')}\n\`\`\``;
    const pieces = splitMessage(`Here:\n${code}\nDone.`);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces[0]!.endsWith('\n```')).toBe(true);
    expect(pieces[1]!.startsWith('```python\n')).toBe(true);
    expect(pieces.at(-1)!.endsWith('```\nDone.')).toBe(true);
  });

  it('cuts at a line break rather than mid-line, and at a space rather than mid-word', () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index} ${'word '.repeat(8)}`).join('\n');
    for (const piece of splitMessage(lines).slice(0, -1)) expect(piece.endsWith('\n')).toBe(true);
    const words = 'word '.repeat(1000);
    for (const piece of splitMessage(words).slice(0, -1)) expect(piece.endsWith(' ')).toBe(true);
  });
});
