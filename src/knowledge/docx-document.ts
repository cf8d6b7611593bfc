import type { ExtractRefusal, KnowledgeSection } from './knowledge-document.ts';
import { htmlDocument } from './html-document.ts';

/** The first bytes of an OLE compound file: what Office makes of a .docx it encrypts with a password. */
const compoundFile = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * A Word document's text, its headings (Heading 1-6 styles) kept: mammoth (mammoth.js, loaded at
 * the first .docx) turns it into HTML, read as HTML is. A .docx that is an OLE compound file is
 * one encrypted with a password ([MS-OFFCRYPTO] 2.3.4: the package is stored encrypted inside a
 * compound file); one that mammoth cannot open is refused as damaged.
 */
export async function docxDocument(
  bytes: Uint8Array,
  name: string,
): Promise<{ title: string | null; sections: KnowledgeSection[] } | ExtractRefusal> {
  if (compoundFile.every((byte, index) => bytes[index] === byte))
    return { refused: 'password', message: `${name} is protected by a password: add a copy without one.` };
  const { default: mammoth } = await import('mammoth');
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) }))
      .value;
  } catch {
    return { refused: 'unreadable', message: `${name} could not be read as a Word document (it may be damaged).` };
  }
  return htmlDocument(html);
}
