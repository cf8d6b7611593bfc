/**
 * A file's text for the server's knowledge, in sections under their headings: plain text,
 * Markdown (its # headings), HTML (html-to-text, its h1-h6 kept as headings), JSON, CSV, PDF
 * (unpdf, a build of Mozilla's pdf.js for servers; one section per page) and Word (.docx, mammoth). What cannot be read is
 * refused in a plain sentence for the moderator: its format, its size, a PDF with no text (scanned)
 * or behind a password, a file that is damaged.
 */
import { decodeText } from '../web/decode-text.ts';
import { parseContentType } from '../web/readable-text.ts';
import { csvSections, jsonSections } from './data-sections.ts';
import { docxDocument } from './docx-document.ts';
import { htmlDocument } from './html-document.ts';
import { markdownSections } from './markdown-sections.ts';
import { pdfDocument } from './pdf-document.ts';

import type { ExtractedDocument, ExtractRefusal, KnowledgeSection } from './knowledge-document.ts';

export type { ExtractedDocument, ExtractRefusal, KnowledgeSection } from './knowledge-document.ts';

type KnowledgeFormat = 'text' | 'markdown' | 'html' | 'json' | 'csv' | 'pdf' | 'docx';

export function isRefusal<T extends object>(x: T | ExtractRefusal): x is ExtractRefusal {
  return 'refused' in x;
}

const byExtension: Record<string, KnowledgeFormat> = {
  txt: 'text',
  text: 'text',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  json: 'json',
  csv: 'csv',
  pdf: 'pdf',
  docx: 'docx',
};

const byMediaType: Record<string, KnowledgeFormat> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/json': 'json',
  'text/csv': 'csv',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** The formats read, for a refusal's sentence and the commands' help. */
export const knowledgeFormats = 'text (.txt), Markdown (.md), HTML, JSON, CSV, PDF and Word (.docx)';

/** The format of a file: by its name's extension, else by its Content-Type; null when neither is one read here. */
function formatOf(name: string, contentType: string | null): KnowledgeFormat | null {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (extension !== undefined && byExtension[extension]) return byExtension[extension];
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return (mediaType && byMediaType[mediaType]) || null;
}

/** The file's title (its own, else its name) and its sections; or why it is refused. */
export async function extractText(input: {
  bytes: Uint8Array;
  name: string;
  contentType: string | null;
  maxBytes: number;
}): Promise<ExtractedDocument | ExtractRefusal> {
  const format = formatOf(input.name, input.contentType);
  if (format === null)
    return { refused: 'format', message: `${input.name} is not a format the knowledge reads: ${knowledgeFormats}.` };
  if (input.bytes.byteLength > input.maxBytes)
    return {
      refused: 'size',
      message: `${input.name} is ${megabytes(input.bytes.byteLength)}: the most a document may be is ${megabytes(input.maxBytes)}.`,
    };
  const extracted = await extractFormat(
    format,
    input.bytes,
    input.name,
    parseContentType(input.contentType ?? undefined).charset,
  );
  if (isRefusal(extracted)) return extracted;
  const sections = extracted.sections
    .map((section) => ({ heading: section.heading, text: section.text.trim() }))
    .filter((section) => section.text !== '');
  if (sections.length === 0) return { refused: 'no-text', message: `${input.name} holds no text to add.` };
  return { title: extracted.title?.trim() || input.name, sections };
}

type Extracted = { title: string | null; sections: KnowledgeSection[] };

async function extractFormat(
  format: KnowledgeFormat,
  bytes: Uint8Array,
  name: string,
  charset: string | null,
): Promise<Extracted | ExtractRefusal> {
  if (format === 'pdf') return pdfDocument(bytes, name);
  if (format === 'docx') return docxDocument(bytes, name);
  if (bytes.subarray(0, 4096).includes(0) && !hasUtf16Mark(bytes))
    return { refused: 'unreadable', message: `${name} is not text, though its name says it is.` };
  // A byte-order mark first, then the Content-Type's charset, else UTF-8 (src/web/decode-text.ts).
  const text = decodeText(bytes, charset);
  switch (format) {
    case 'markdown':
      return markdownSections(text);
    case 'html':
      return htmlDocument(text);
    case 'json':
      return jsonSections(text, name);
    case 'csv':
      return { title: null, sections: csvSections(text) };
    default:
      return { title: null, sections: [{ heading: null, text }] };
  }
}

function hasUtf16Mark(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

function megabytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}
