import { describe, expect, it } from 'vitest';
import { extractText, isRefusal, knowledgeFormats } from '../../src/knowledge/extract-text.ts';
import { docxFile } from '../support/docx-file.ts';
import { pdfFile } from '../support/pdf-file.ts';

const read = (text: string | Buffer, name: string, contentType: string | null = null, maxBytes = 1_000_000) =>
  extractText({ bytes: typeof text === 'string' ? Buffer.from(text) : text, name, contentType, maxBytes });

describe('extractText', () => {
  it('cuts Markdown at its headings, each section under its heading path, and takes the first # as title', async () => {
    const markdown =
      '# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n```sh\n# not a heading\n```\n\n### On Linux\n\napt.\n\n## Use\n\nStart.';
    expect(await read(markdown, 'guide.md')).toEqual({
      title: 'Guide',
      sections: [
        { heading: 'Guide', text: 'Intro.' },
        { heading: 'Guide › Install', text: 'Run it.\n\n```sh\n# not a heading\n```' },
        { heading: 'Guide › Install › On Linux', text: 'apt.' },
        { heading: 'Guide › Use', text: 'Start.' },
      ],
    });
  });

  it('reads plain text as one section titled by the file name', async () => {
    expect(await read('Just words.\n\nMore words.', 'notes.txt')).toEqual({
      title: 'notes.txt',
      sections: [{ heading: null, text: 'Just words.\n\nMore words.' }],
    });
  });

  it('keeps HTML headings as headings, its <title> as title, and leaves scripts out', async () => {
    const html =
      '<html><head><title>The FAQ</title><script>var secret = 1;</script></head><body><h1>Questions</h1><p>First <a href="https://x.test">link</a>.</p><h2>Refunds</h2><p>Within 30 days.</p></body></html>';
    const document = await read(html, 'faq.html');
    expect(document).toEqual({
      title: 'The FAQ',
      sections: [
        { heading: 'Questions', text: 'First link.' },
        { heading: 'Questions › Refunds', text: 'Within 30 days.' },
      ],
    });
  });

  it('decodes text in the charset its Content-Type names', async () => {
    const latin1 = Buffer.from('Café crème', 'latin1');
    expect(await read(latin1, 'menu.txt', 'text/plain; charset=ISO-8859-1')).toMatchObject({
      sections: [{ heading: null, text: 'Café crème' }],
    });
  });

  it('tells the format by Content-Type when the name has no known extension', async () => {
    const document = await read('<h1>Hi</h1><p>there</p>', 'page', 'text/html; charset=utf-8');
    expect(document).toMatchObject({ sections: [{ heading: 'Hi', text: 'there' }] });
  });

  it('writes JSON values after their paths, a section per top-level key', async () => {
    const json = JSON.stringify({ shipping: { days: 3, regions: ['EU', 'US'] }, returns: 'within 30 days' });
    expect(await read(json, 'policy.json')).toEqual({
      title: 'policy.json',
      sections: [
        { heading: 'shipping', text: 'shipping.days: 3\nshipping.regions[0]: EU\nshipping.regions[1]: US' },
        { heading: 'returns', text: 'returns: within 30 days' },
      ],
    });
  });

  it('writes each CSV row as "column: value" pairs, quoted fields and line breaks in quotes included', async () => {
    const csv = 'question,answer\n"How, when?","Now, ""always"""\r\nWhere,"Here\nand there"\n';
    expect(await read(csv, 'faq.csv')).toEqual({
      title: 'faq.csv',
      sections: [
        {
          heading: null,
          text: 'question: How, when?; answer: Now, "always"\n\nquestion: Where; answer: Here\nand there',
        },
      ],
    });
  });

  it('reads a PDF a section per page, with its title', async () => {
    const pdf = pdfFile([['Opening hours', 'Monday to Friday (9 to 5)'], ['Closed on Sundays']], { title: 'Hours' });
    expect(await read(pdf, 'hours.pdf')).toEqual({
      title: 'Hours',
      sections: [
        { heading: 'Page 1', text: 'Opening hours\nMonday to Friday (9 to 5)' },
        { heading: 'Page 2', text: 'Closed on Sundays' },
      ],
    });
  });

  it('refuses a PDF with no text (a scan), one behind a password, and a damaged one, each in a plain sentence', async () => {
    const scanned = await read(pdfFile([['x'], ['y']], { scanned: true }), 'scan.pdf');
    const locked = await read(pdfFile([['secret']], { encrypted: true }), 'locked.pdf');
    const damaged = await read('%PDF-1.4 then nothing', 'broken.pdf');
    expect(scanned).toMatchObject({ refused: 'no-text', message: expect.stringContaining('scanned') });
    expect(locked).toMatchObject({ refused: 'password', message: expect.stringContaining('password') });
    expect(damaged).toMatchObject({ refused: 'unreadable', message: expect.stringContaining('broken.pdf') });
  });

  it('reads a Word document, its Heading styles kept as headings', async () => {
    const docx = docxFile([
      { style: 'Heading1', text: 'Handbook' },
      { text: 'Welcome & hello.' },
      { style: 'Heading2', text: 'Leave' },
      { text: 'Ask two weeks ahead.' },
    ]);
    expect(await read(docx, 'handbook.docx')).toEqual({
      title: 'Handbook',
      sections: [
        { heading: 'Handbook', text: 'Welcome & hello.' },
        { heading: 'Handbook › Leave', text: 'Ask two weeks ahead.' },
      ],
    });
  });

  it('refuses a Word document behind a password (an OLE compound file) and a damaged one', async () => {
    const encrypted = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)]);
    expect(await read(encrypted, 'secret.docx')).toMatchObject({ refused: 'password' });
    expect(await read('PK not really a zip', 'broken.docx')).toMatchObject({
      refused: 'unreadable',
      message: expect.stringContaining('broken.docx'),
    });
  });

  it('refuses a format it does not read, a file over the size limit, a binary named .txt, and an empty file', async () => {
    const format = await read('PK\u0003\u0004', 'slides.pptx', 'application/vnd.ms-powerpoint');
    const size = await read('x'.repeat(2000), 'big.txt', null, 1000);
    const binary = await read(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'image.txt');
    const empty = await read('  \n\n ', 'empty.md');
    expect(format).toEqual({
      refused: 'format',
      message: `slides.pptx is not a format the knowledge reads: ${knowledgeFormats}.`,
    });
    expect(size).toMatchObject({ refused: 'size', message: expect.stringContaining('most a document may be') });
    expect(binary).toMatchObject({ refused: 'unreadable' });
    expect(empty).toMatchObject({ refused: 'no-text' });
    expect([format, size, binary, empty].every(isRefusal)).toBe(true);
  });

  it('refuses JSON that does not parse', async () => {
    expect(await read('{"a": ', 'bad.json')).toMatchObject({
      refused: 'unreadable',
      message: 'bad.json is not valid JSON.',
    });
  });
});
