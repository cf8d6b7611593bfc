import { describe, expect, it } from 'vitest';
import { chunkDocument, maxChunkCharacters } from '../../src/knowledge/chunk-document.ts';
import type { KnowledgeSection } from '../../src/knowledge/extract-text.ts';

describe('chunkDocument', () => {
  it('packs a section’s paragraphs together under its heading, never mixing two sections', () => {
    const sections: KnowledgeSection[] = [
      { heading: 'Install', text: 'One.\n\nTwo.' },
      { heading: 'Use', text: 'Three.' },
    ];
    const chunks = chunkDocument({ title: 't', sections });
    expect(chunks).toEqual([
      { heading: 'Install', text: 'One.\n\nTwo.' },
      { heading: 'Use', text: 'Three.' },
    ]);
  });

  it('cuts a long section at paragraphs, repeating its heading on each chunk, all within the bound and in order', () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${'word '.repeat(30).trim()}.`);
    const chunks = chunkDocument({ title: 't', sections: [{ heading: 'Long', text: paragraphs.join('\n\n') }] });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.heading === 'Long' && chunk.text.length <= maxChunkCharacters)).toBe(true);
    expect(chunks.map((chunk) => chunk.text).join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('cuts a paragraph longer than a chunk at sentence ends', () => {
    const sentence = `${'lorem '.repeat(40).trim()}.`;
    const paragraph = Array.from({ length: 10 }, () => sentence).join(' ');
    const chunks = chunkDocument({ title: 't', sections: [{ heading: null, text: paragraph }] });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.text.endsWith('.') && chunk.text.length <= maxChunkCharacters)).toBe(true);
  });
});
