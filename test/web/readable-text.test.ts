import { describe, expect, it } from 'vitest';
import { decodeText } from '../../src/web/decode-text.ts';
import { isReadableType, maxLinkLength, parseContentType, readableText } from '../../src/web/readable-text.ts';

const base = 'https://tea.example/shop/index.html';
const html = (body: string, contentType = 'text/html') =>
  readableText(Buffer.from(body), parseContentType(contentType), base);

describe('readable text', () => {
  it('splits a Content-Type into its media type and charset', () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"; foo=bar')).toEqual({
      mediaType: 'text/html',
      charset: 'ISO-8859-1',
    });
    expect(parseContentType('application/json')).toEqual({ mediaType: 'application/json', charset: null });
    expect(parseContentType(undefined)).toEqual({ mediaType: null, charset: null });
  });

  it.each([
    ['text/html', true],
    ['application/xhtml+xml', true],
    ['text/csv', true],
    ['application/json', true],
    ['application/ld+json', true],
    ['application/rss+xml', true],
    [null, true],
    ['image/png', false],
    ['application/pdf', false],
    ['application/octet-stream', false],
    ['application/zip', false],
    ['video/mp4', false],
  ])('reads %s as text: %s', (mediaType, readable) => {
    expect(isReadableType(mediaType)).toBe(readable);
  });

  it('keeps short http(s) links as absolute URLs and drops long, script and in-page ones, keeping their text', async () => {
    const long = `/${'x'.repeat(maxLinkLength)}`;
    const { text } = (await html(
      `<p><a href="../about">About</a> <a href="${long}">Long</a> <a href="javascript:void(0)">Script</a> <a href="#menu">Menu</a> <a href="mailto:tea@tea.example">Mail</a></p>`,
    )) as { text: string };
    expect(text).toBe('About [https://tea.example/about] Long Script Menu Mail');
  });

  it('skips what is not text: scripts, styles, images, SVG, templates, noscript', async () => {
    const result = await html(
      '<html><head><title>  Shop\n  </title><script>var a=1</script><style>p{}</style></head><body><p>Leaves</p><img src="a.png" alt="alt text"><svg><text>drawn</text></svg><template>later</template><noscript>enable js</noscript></body></html>',
    );
    expect(result).toEqual({ kind: 'html', title: 'Shop', text: 'Leaves' });
  });

  it('decodes by byte-order mark first, then the header, then a meta tag, with UTF-8 for unknown labels', async () => {
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x74, 0x00, 0xe9, 0x00]), 'windows-1252')).toBe('té');
    expect(decodeText(Buffer.from([0x91, 0x93, 0x80, 0x94, 0x92, 0x99]), 'iso-8859-1')).toBe('‘“€”’™');
    expect(decodeText(Buffer.from('çà'), 'not-a-charset')).toBe('çà');
    const latin = Buffer.concat([
      Buffer.from('<meta charset="windows-1252"><p>'),
      Buffer.from([0xe9, 0x80]),
      Buffer.from('</p>'),
    ]);
    expect(await readableText(latin, parseContentType('text/html'), base)).toMatchObject({ text: 'é€' });
    expect(
      await readableText(
        Buffer.from('<meta charset="windows-1252"><p>é</p>'),
        parseContentType('text/html; charset=utf-8'),
        base,
      ),
    ).toMatchObject({ text: 'é' });
  });

  it('sniffs a body that names no type: NUL bytes are binary, a document is HTML, the rest is text', async () => {
    expect(await readableText(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00]), parseContentType(undefined), base)).toEqual({
      kind: 'binary',
    });
    expect(
      await readableText(Buffer.from('<!DOCTYPE html><title>T</title><p>x</p>'), parseContentType(undefined), base),
    ).toEqual({ kind: 'html', title: 'T', text: 'x' });
    expect(await readableText(Buffer.from('a < b'), parseContentType(undefined), base)).toEqual({
      kind: 'text',
      text: 'a < b',
    });
  });
});
