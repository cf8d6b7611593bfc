import { z } from 'zod';
import { classifyAddress } from '../src/web/address-policy.ts';
import { FetchError } from '../src/web/fetch-error.ts';
import { cutReadText, maxReadChars } from '../src/web/read-limits.ts';
import { isReadableType, readableText } from '../src/web/readable-text.ts';
import { defaultFetchLimits, type FetchLimits, type Resolver, safeGet, systemResolver } from '../src/web/safe-fetch.ts';
import { defineTool } from './define-tool.ts';
import { formatCount } from '../src/text/count.ts';

/** Limits of one fetch; `maxChars` bounds the text handed back, below the observation cap. */
interface FetchUrlLimits extends FetchLimits {
  maxChars: number;
}

const defaultFetchUrlLimits: FetchUrlLimits = { ...defaultFetchLimits, maxChars: maxReadChars };

export interface FetchUrlOptions {
  /** Defaults to the system resolver; tests pass their own, so that no test touches DNS. */
  resolve?: Resolver;
  limits?: Partial<FetchUrlLimits>;
  /**
   * TEST ONLY: addresses to reach although the policy refuses them, such as a test server's
   * 127.0.0.1. Only code can set it; no setting or environment variable leads here.
   */
  testOnlyAllowAddresses?: readonly string[];
}

const userAgent = 'discord-agent-bot/0.1 (fetch_url tool; a Discord bot reading a page someone asked about)';

/** The fetch_url tool: a public web page or text file over HTTP(S), as readable text. */
export function fetchUrlTool(options: FetchUrlOptions = {}) {
  const limits = { ...defaultFetchUrlLimits, ...options.limits };
  const allowed = new Set((options.testOnlyAllowAddresses ?? []).map((address) => classifyAddress(address).address));
  const testOnlyAllow = allowed.size > 0 ? (address: string) => allowed.has(address) : undefined;
  return defineTool({
    name: 'fetch_url',
    description:
      'Read a public web page or text file (http/https GET) as plain text, with its title and final URL. ' +
      `HTML is turned into text; JSON and other text come as they are; text past ${formatCount(limits.maxChars)} characters is cut. ` +
      'Private and local network addresses, URLs with a password, and binary files (images, PDFs, archives) are refused.',
    parameters: z.object({
      url: z
        .string()
        .min(1)
        .max(2048)
        .describe('The full http:// or https:// address to fetch, for example "https://example.com/page".'),
    }),
    async execute({ url }, context) {
      const page = await safeGet(url.trim(), {
        resolve: options.resolve ?? systemResolver,
        limits,
        userAgent,
        signal: context.signal,
        acceptsType: isReadableType,
        testOnlyAllow,
      });
      const readable = await readableText(page.body.bytes, page.contentType, page.url);
      if (readable.kind === 'binary')
        throw new FetchError('fetch-unreadable-type', `${page.url} is binary data, which I cannot read as text.`);
      // The page read is a source an answer may cite, under the address asked for too when it redirected.
      context.noteSource?.(page.url);
      if (page.redirectedFrom) context.noteSource?.(page.redirectedFrom);
      const lines = [
        `URL: ${page.url}${page.redirectedFrom ? ` (redirected from ${page.redirectedFrom})` : ''}`,
        `Status: ${page.status} ${page.statusText}`.trimEnd(),
      ];
      if (readable.kind === 'html' && readable.title) lines.push(`Title: ${readable.title}`);
      if (page.contentType.mediaType) lines.push(`Content-Type: ${page.contentType.mediaType}`);
      if (page.body.truncated)
        lines.push(`Note: the body is longer than ${formatCount(limits.maxBytes)} bytes; only that much was read.`);
      return `${lines.join('\n')}\n\n${cutReadText(readable.text.trim() || '(empty body)', limits.maxChars)}`;
    },
  });
}

export const fetchUrl = fetchUrlTool();
