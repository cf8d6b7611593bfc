import type { HtmlToTextOptions } from 'html-to-text';
import { bomCharset, decodeText } from './decode-text.ts';

/** A Content-Type header, split: the media type lower-cased, and the charset if it names one. */
export interface ContentType {
  mediaType: string | null;
  charset: string | null;
}

export function parseContentType(header: string | undefined): ContentType {
  if (!header) return { mediaType: null, charset: null };
  const [type = '', ...parameters] = header.split(';');
  const mediaType = type.trim().toLowerCase() || null;
  const charsetParameter = parameters
    .map((parameter) => parameter.trim())
    .find((parameter) => /^charset\s*=/i.test(parameter));
  const charset =
    charsetParameter
      ?.replace(/^charset\s*=\s*/i, '')
      .replace(/^["']|["']$/g, '')
      .trim() || null;
  return { mediaType, charset };
}

const htmlTypes = new Set(['text/html', 'application/xhtml+xml']);
const textApplicationTypes = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-ndjson',
  'application/rss+xml',
  'application/atom+xml',
]);

/**
 * Whether a body of this type can be read as text: HTML, text/*, JSON, XML, scripts and the like.
 * No type at all is let through, to be sniffed once read.
 */
export function isReadableType(mediaType: string | null): boolean {
  if (mediaType === null) return true;
  return (
    htmlTypes.has(mediaType) ||
    mediaType.startsWith('text/') ||
    textApplicationTypes.has(mediaType) ||
    /\+(json|xml)$/.test(mediaType)
  );
}

/** A body turned into text for the model. `binary` when a body with no type turns out not to be text. */
export type ReadableBody =
  | { kind: 'html'; title: string | null; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'binary' };

/** The elements of a page that hold no text to read (its <title> is read apart), for html-to-text. */
export const notTextSelectors = ['title', 'img', 'picture', 'svg', 'noscript', 'template', 'iframe'].map(
  (selector) => ({
    selector,
    format: 'skip',
  }),
);

/** HTML to text with the maintained html-to-text: no images, no line wrapping, short links only. */
function htmlOptions(baseUrl: string): HtmlToTextOptions {
  const heading = (selector: string) => ({ selector, options: { uppercase: false } });
  return {
    wordwrap: false,
    selectors: [
      ...notTextSelectors,
      { selector: 'table', format: 'dataTable' },
      // html-to-text strips "mailto:" before pathRewrite sees the href, which would then read as a relative path.
      { selector: 'a[href^="mailto:" i]', format: 'anchor', options: { ignoreHref: true } },
      {
        selector: 'a',
        options: {
          hideLinkHrefIfSameAsText: true,
          noAnchorUrl: true,
          pathRewrite: (href: string) => shortLink(href, baseUrl),
        },
      },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map(heading),
    ],
  };
}

/** Links longer than this are left out (their text stays): they cost more than they help. */
export const maxLinkLength = 120;

/** A link as an absolute http(s) URL, or '' (no link shown) when it is something else or too long. */
function shortLink(href: string, baseUrl: string): string {
  try {
    const url = new URL(href, baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
    return url.href.length <= maxLinkLength ? url.href : '';
  } catch {
    return '';
  }
}

/**
 * Decodes a body and makes it readable: HTML becomes text (with its title), other text is kept as
 * it is. The charset comes from a byte-order mark, then the Content-Type, then (for HTML) a
 * `<meta charset>`, and is UTF-8 otherwise or when the label is unknown.
 */
export async function readableText(bytes: Buffer, contentType: ContentType, baseUrl: string): Promise<ReadableBody> {
  let { mediaType } = contentType;
  if (mediaType === null) {
    if (bytes.subarray(0, 1024).includes(0)) return { kind: 'binary' };
    mediaType = /^\s*<(!doctype html|html|head|body)[\s>]/i.test(bytes.subarray(0, 1024).toString('latin1'))
      ? 'text/html'
      : 'text/plain';
  }
  const html = htmlTypes.has(mediaType);
  const source = decodeText(bytes, contentType.charset ?? (html && !bomCharset(bytes) ? metaCharset(bytes) : null));
  if (!html) return { kind: 'text', text: source };
  // Loaded at the first HTML page, not at start: the bot starts without it (issue 30), and a
  // page fetched over the network takes far longer than the load.
  const { convert } = await import('html-to-text');
  return { kind: 'html', title: titleOf(source, convert), text: tidy(convert(source, htmlOptions(baseUrl))) };
}

function metaCharset(bytes: Buffer): string | null {
  const head = bytes.subarray(0, 2048).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1] ?? null;
}

function titleOf(html: string, convert: typeof import('html-to-text').convert): string | null {
  const inner = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  if (inner === undefined) return null;
  const title = convert(inner, { wordwrap: false }).replace(/\s+/g, ' ').trim();
  return title || null;
}

/** Trailing spaces off every line, and no more than one blank line in a row. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
