/**
 * Documents taken into a server's knowledge from Discord and the web: an attachment read from
 * Discord's CDN, a page fetched under fetch_url's rules (public addresses only, size and time
 * limits: src/web/safe-fetch.ts), both turned into text by the knowledge core
 * (src/knowledge/extract-text.ts). Every refusal is a sentence for the moderator.
 * Comes from: `/knowledge add`, "Add to knowledge" and `/knowledge add-pins` (commands/knowledge*.ts,
 * discord-documents.ts). Goes to: KnowledgeBase.add.
 */
import type { Attachment } from 'discord.js';
import { type ExtractedDocument, type ExtractRefusal, extractText } from '../../knowledge/extract-text.ts';
import { formatSize } from '../../text/byte-size.ts';
import { truncateLine } from '../../text/truncate.ts';
import { readFromCdn } from '../../web/cdn-fetch.ts';
import { FetchError } from '../../web/fetch-error.ts';
import { type Resolver, safeGet } from '../../web/safe-fetch.ts';
import { isOnCdn } from '../inbound/incoming-images.ts';

/** How documents are taken in. */
export interface KnowledgeIntake {
  /** The largest document read, in bytes (the per-document cap). */
  maxBytes: number;
  /** The origins attachments are fetched from (Discord's CDN, or DISCORD_CDN_URL). */
  origins: readonly string[];
  /** Resolves a URL's host (the system's; tests pass their own, so that none touches DNS). */
  resolve: Resolver;
  /**
   * TEST ONLY: an address the public-address rule refuses that may be reached all the same (a test
   * server on 127.0.0.1). Only code sets it; no setting leads here (as fetch_url's).
   */
  testOnlyAllow?: (address: string) => boolean;
}

/**
 * The most bytes of one file or page read: eight for each character a document may hold
 * (KNOWLEDGE_MAX_DOCUMENT_CHARACTERS), as a PDF or a page's HTML spends many bytes on each
 * character of its text. Past it, a file is refused unread.
 */
export const knowledgeFileBytes = (maxDocumentCharacters: number) => maxDocumentCharacters * 8;

const fetchTimeoutMs = 20_000;
const userAgent = 'discord-agent-bot/0.1 (knowledge; a moderator added this page to their server)';

/** A refusal for size, said as the moderator reads it. */
const tooLarge = (name: string, maxBytes: number): ExtractRefusal => ({
  refused: 'size',
  message: `${name} is larger than ${formatSize(maxBytes)}, the most I take of one document.`,
});

/** An attachment's bytes, fetched from Discord's CDN (never more than the cap), or why not. */
async function fetchAttachment(
  file: Pick<Attachment, 'name' | 'url' | 'size'>,
  intake: KnowledgeIntake,
): Promise<{ bytes: Buffer } | ExtractRefusal> {
  const name = truncateLine(file.name, 100);
  // Discord says the size before anything is fetched; the body is cut at the cap as it is read, in case it lied.
  if (file.size > intake.maxBytes) return tooLarge(name, intake.maxBytes);
  if (!isOnCdn(file.url, intake.origins))
    return { refused: 'unreadable', message: `${name} is not on Discord's CDN: I did not fetch it.` };
  try {
    const read = await readFromCdn(file.url, intake.maxBytes, fetchTimeoutMs);
    if (!read.ok) return { refused: 'unreadable', message: `${name} could not be read (${read.why}).` };
    return read.truncated ? tooLarge(name, intake.maxBytes) : { bytes: read.bytes };
  } catch {
    return { refused: 'unreadable', message: `${name} could not be fetched from Discord.` };
  }
}

/** An attachment's text: fetched, then extracted. */
export async function readAttachment(
  file: Pick<Attachment, 'name' | 'url' | 'size' | 'contentType'>,
  intake: KnowledgeIntake,
): Promise<{ document: ExtractedDocument } | ExtractRefusal> {
  const fetched = await fetchAttachment(file, intake);
  if ('refused' in fetched) return fetched;
  const extracted = await extractText({
    bytes: fetched.bytes,
    name: file.name,
    contentType: file.contentType,
    maxBytes: intake.maxBytes,
  });
  return 'refused' in extracted ? extracted : { document: extracted };
}

/** A page's text and where it ended up: fetched as fetch_url fetches (public addresses only), then extracted. */
export async function readPage(
  url: string,
  intake: KnowledgeIntake,
): Promise<{ document: ExtractedDocument; url: string } | ExtractRefusal> {
  try {
    const page = await safeGet(url.trim(), {
      resolve: intake.resolve,
      limits: { maxBytes: intake.maxBytes, timeoutMs: fetchTimeoutMs, maxRedirects: 5 },
      userAgent,
      ...(intake.testOnlyAllow ? { testOnlyAllow: intake.testOnlyAllow } : {}),
    });
    if (page.status >= 400)
      return { refused: 'unreadable', message: `${truncateLine(page.url, 200)} answered ${page.status}.` };
    if (page.body.truncated) return tooLarge(truncateLine(page.url, 200), intake.maxBytes);
    const extracted = await extractText({
      bytes: page.body.bytes,
      name: pageName(page.url),
      contentType: page.contentType.mediaType,
      maxBytes: intake.maxBytes,
    });
    return 'refused' in extracted ? extracted : { document: extracted, url: page.url };
  } catch (error) {
    // Its userMessage: the message itself (the detail) may name the addresses a host resolved to.
    if (error instanceof FetchError) return { refused: 'unreadable', message: error.userMessage };
    throw error;
  }
}

/** A page's file name (what its format is judged by when its type says little): the last part of its path, or its host. */
function pageName(url: string): string {
  const parsed = new URL(url);
  return decodeURIComponent(parsed.pathname.split('/').filter(Boolean).at(-1) ?? '') || parsed.hostname;
}
