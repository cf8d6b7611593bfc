/**
 * Small PDFs written by hand for tests and benches (PDF 1.4, ISO 32000-1 §7: a catalog, a page
 * tree, one content stream per page in Helvetica, a cross-reference table with the byte offsets).
 * `scanned` draws a rectangle instead of text (a page with no text, as a scan has); `encrypted`
 * adds a standard security handler (§7.6.3, revision 2) whose password matches nothing, so a
 * reader asks for one.
 */
export interface PdfOptions {
  title?: string;
  scanned?: boolean;
  encrypted?: boolean;
}

/** A PDF of the pages given, each a list of lines. */
export function pdfFile(pages: readonly (readonly string[])[], options: PdfOptions = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  const pageIds = pages.map((_, index) => 4 + index * 2);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (const [index, lines] of pages.entries()) {
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[index]! + 1} 0 R >>`,
    );
    const stream = options.scanned ? '0.5 g 72 72 468 648 re f' : textStream(lines);
    add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  }
  const infoId = objects.length + 1;
  add(`<< /Title (${escape(options.title ?? 'Untitled')}) /Producer (test pdf-file) >>`);
  let encryptId: number | null = null;
  if (options.encrypted) {
    encryptId = objects.length + 1;
    add(`<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> >>`);
  }
  return assemble(objects, infoId, encryptId);
}

function textStream(lines: readonly string[]): string {
  return `BT /F1 11 Tf 14 TL 72 750 Td ${lines.map((line) => `(${escape(line)}) Tj T*`).join(' ')} ET`;
}

function escape(text: string): string {
  return text.replace(/[\\()]/g, (character) => `\\${character}`);
}

function assemble(objects: readonly string[], infoId: number, encryptId: number | null): Buffer {
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const encrypt =
    encryptId === null ? '' : ` /Encrypt ${encryptId} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${infoId} 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
