/**
 * What an MCP tool's call returns, made into what the model reads: its text, its images (checked
 * by their bytes), its resources and links, and no binary data passed off as text. A result the
 * server marks as an error becomes the tool's error.
 */
import type { ResultWithImages, ToolImage } from '../agent/tool-images.ts';
import { UserFacingError } from '../agent/errors.ts';
import { takeImageBytes } from '../images/take-image.ts';
import { formatSize } from '../text/byte-size.ts';
import { describeLink, type ResourceContents, type ResourceLink, resourcePart } from './mcp-resources.ts';

/** What a tool call returns (`tools/call`), the parts we use. */
export interface CallResult {
  content?: ({
    type: string;
    text?: string;
    /** An image's bytes, base64. */
    data?: string;
    resource?: ResourceContents;
    /** Who the item is for: `user`, `assistant` or both (absent: both). */
    annotations?: { audience?: string[] };
  } & ResourceLink)[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** The largest image a tool may return: the most IMAGE_MAX_MB allows. */
const maxToolImageBytes = 20 * 1024 * 1024;

/**
 * A call's result for the model: its text, with its images (checked by their bytes) when it
 * returned any. https://modelcontextprotocol.io/specification/2025-06-18/server/tools#image-content
 */
export function toolResult(
  server: string,
  tool: string,
  result: CallResult,
  readTool: string | null = null,
): string | ResultWithImages {
  const images: ToolImage[] = [];
  const notes: string[] = [];
  for (const item of result.content ?? []) {
    if (item.type !== 'image') continue;
    const bytes = Buffer.from(item.data ?? '', 'base64');
    const taken =
      bytes.length > maxToolImageBytes
        ? { refused: `larger than ${formatSize(maxToolImageBytes)}` }
        : takeImageBytes('tool image', bytes);
    if ('image' in taken) {
      const { mediaType, width, height } = taken.image;
      images.push({ mediaType, width, height, base64: bytes.toString('base64'), ...audienceOf(item) });
    } else notes.push(`[image ${item.mimeType ?? ''}: not shown, ${taken.refused}]`);
  }
  const text = resultText(
    server,
    tool,
    { ...result, content: (result.content ?? []).filter((item) => item.type !== 'image') },
    (item) => {
      if (item.type === 'resource_link') return describeLink(item, readTool);
      const part = resourcePart(item.resource ?? {});
      if (part.image) images.push({ ...part.image, ...audienceOf(item) });
      return part.text;
    },
  );
  const withNotes = [text === '(no result)' && images.length > 0 ? '' : text, ...notes].filter(Boolean).join('\n');
  return images.length === 0 ? withNotes : { type: 'result-with-images', text: withNotes, images };
}

/**
 * Whom an image is for, read from its `audience` annotation: `["user"]` the person only (posted in
 * the thread, never sent to the model), `["assistant"]` the model only; both or none, everyone.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/resources#annotations
 */
function audienceOf(item: { annotations?: { audience?: string[] } }): { audience?: 'people' | 'model' } {
  const audience = item.annotations?.audience;
  if (!Array.isArray(audience) || audience.length === 0) return {};
  const user = audience.includes('user');
  const assistant = audience.includes('assistant');
  if (user && !assistant) return { audience: 'people' };
  if (assistant && !user) return { audience: 'model' };
  return {};
}

/** A call's result as text for the model and the thread; a result marked as an error becomes one. */
function resultText(
  server: string,
  tool: string,
  result: CallResult,
  resource: (item: NonNullable<CallResult['content']>[number]) => string,
): string {
  const parts = (result.content ?? []).map((item) => {
    if (item.type === 'text') return item.text ?? '';
    if (item.type === 'resource' || item.type === 'resource_link') return resource(item);
    return `[${item.type}${item.mimeType ? ` ${item.mimeType}` : ''}]`;
  });
  const text =
    parts.join('\n').trim() ||
    (result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent, withoutBinary));
  if (result.isError)
    throw new UserFacingError(
      'mcp_tool_error',
      `${tool} (${server} MCP server) reported an error: ${text || 'no detail given'}`,
    );
  return text || '(no result)';
}

/** A string this long of base64 alone is taken for binary data (no word or sentence looks like it). */
const minBase64Length = 256;
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;
const dataUrl = /^data:([^;,]*)(?:;[^,]*)?,/;

/**
 * JSON.stringify's replacer that takes binary data out of a structured result: base64 strings and
 * data: URLs are named, never sent as text. `server-filesystem`'s `read_media_file` repeats the image
 * it returns in its `structuredContent`, which would otherwise reach the model as 16,000 characters
 * of base64.
 */
function withoutBinary(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || value.length < minBase64Length) return value;
  const url = dataUrl.exec(value);
  const payload = url ? value.slice(url[0].length) : value;
  if (!url && !base64.test(payload)) return value;
  const bytes = Math.floor((payload.length * 3) / 4);
  return `[binary data${url?.[1] ? ` ${url[1]}` : ''}, ${formatSize(bytes)}: taken out]`;
}
