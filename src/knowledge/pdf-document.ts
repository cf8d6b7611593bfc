import type { ExtractRefusal, KnowledgeSection } from './knowledge-document.ts';

/**
 * A PDF's text, a section per page ("Page 3"), read with unpdf (pdf.js built for servers; loaded
 * at the first PDF, not at start). A PDF whose pages hold no text is a scan and is refused as such;
 * one that asks for a password (pdf.js's PasswordException) is refused too, as is a damaged file.
 */
export async function pdfDocument(
  bytes: Uint8Array,
  name: string,
): Promise<{ title: string | null; sections: KnowledgeSection[] } | ExtractRefusal> {
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may take the buffer over (it transfers it to its worker): it is handed a copy.
    // verbosity 0: errors only, no warnings about fonts on stdout.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    return refusalOf(error, name);
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    if (text.every((page) => page.trim() === ''))
      return {
        refused: 'no-text',
        message: `${name} has no text in it: it looks scanned (pictures of pages). Add a PDF with its text, or the text itself.`,
      };
    const { info } = await getMeta(pdf).catch(() => ({ info: {} as Record<string, unknown> }));
    const title = typeof info.Title === 'string' ? info.Title : null;
    return { title, sections: text.map((page, index) => ({ heading: `Page ${index + 1}`, text: page })) };
  } catch (error) {
    return refusalOf(error, name);
  } finally {
    await pdf.destroy();
  }
}

function refusalOf(error: unknown, name: string): ExtractRefusal {
  if ((error as { name?: unknown } | null)?.name === 'PasswordException')
    return {
      refused: 'password',
      message: `${name} is protected by a password: add a copy without one.`,
    };
  return { refused: 'unreadable', message: `${name} could not be read as a PDF (it may be damaged).` };
}
