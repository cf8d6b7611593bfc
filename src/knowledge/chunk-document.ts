import type { ExtractedDocument } from './knowledge-document.ts';

/**
 * The most characters of a chunk's text. About 300 tokens: small enough that five passages sent
 * to the model cost little more than a page, and that small embedding models (many read at most
 * 512 tokens) see a whole chunk; large enough to hold a heading with a few paragraphs of its own.
 */
export const maxChunkCharacters = 1200;

export interface Chunk {
  /** The path of headings the text falls under ("Install › On Linux"), repeated on every chunk of the section. */
  heading: string | null;
  text: string;
}

/**
 * A document cut into chunks, in order: a section's paragraphs are packed together up to
 * maxChunkCharacters and never mixed with another section's, so each chunk stays under its own
 * heading; a paragraph longer than a chunk is cut at sentence ends, else at spaces.
 */
export function chunkDocument(document: ExtractedDocument, most = maxChunkCharacters): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of document.sections) {
    let current = '';
    const flush = () => {
      if (current.trim() !== '') chunks.push({ heading: section.heading, text: current.trim() });
      current = '';
    };
    for (const paragraph of paragraphsOf(section.text, most)) {
      if (current !== '' && current.length + 2 + paragraph.length > most) flush();
      current = current === '' ? paragraph : `${current}\n\n${paragraph}`;
    }
    flush();
  }
  return chunks;
}

/** The paragraphs of a text (blank-line separated), each at most `most` characters. */
function paragraphsOf(text: string, most: number): string[] {
  return text
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .flatMap((paragraph) => (paragraph.length <= most ? [paragraph] : cutLong(paragraph, most)));
}

/** A long paragraph in pieces of at most `most` characters: at sentence ends where it can, else at spaces, else anywhere. */
function cutLong(paragraph: string, most: number): string[] {
  const pieces: string[] = [];
  let rest = paragraph;
  while (rest.length > most) {
    const window = rest.slice(0, most + 1);
    const sentenceEnd = Math.max(
      window.lastIndexOf('. '),
      window.lastIndexOf('? '),
      window.lastIndexOf('! '),
      window.lastIndexOf('\n'),
    );
    const space = window.lastIndexOf(' ');
    const cut = sentenceEnd > most / 2 ? sentenceEnd + 1 : space > most / 2 ? space : most;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}
