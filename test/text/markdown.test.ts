import { describe, expect, it } from 'vitest';
import { escapeMarkdown } from '../../src/text/markdown.ts';

describe('escapeMarkdown', () => {
  it('keeps every character of a question, each mark escaped rather than taken out', () => {
    expect(escapeMarkdown('what is 2+3*4?')).toBe('what is 2+3\\*4?');
    expect(escapeMarkdown('snake_case_name')).toBe('snake\\_case\\_name');
    expect(escapeMarkdown('||spoiler|| ~~gone~~ `code`')).toBe('\\|\\|spoiler\\|\\| \\~\\~gone\\~\\~ \\`code\\`');
  });

  it('escapes a backslash first, so an escape in the name cannot undo the next one', () => {
    expect(escapeMarkdown('a\\*b*')).toBe('a\\\\\\*b\\*');
  });

  it('leaves a name that reads as a mention or a link as plain text', () => {
    expect(escapeMarkdown('<@123> [x](https://e.example)')).toBe('\\<\\@123\\> \\[x\\]\\(https://e.example\\)');
  });
});
