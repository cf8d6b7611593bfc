/**
 * An MCP server's resources for the model: the links and embedded resources a tool returns, named
 * with what the server says of them (name, description, MIME type), and `read_resource`, the tool
 * that opens a link, offered for each server that declares resources. What is read stays within
 * fetch_url's limits: text cut at its length, binary data named and never sent as text, a still
 * image shown to a model that sees.
 * https://modelcontextprotocol.io/specification/2025-06-18/server/resources
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#resource-links
 */
import { z } from 'zod';
import { fromZodTool } from '../agent/runtime-tool.ts';
import type { RuntimeTool, ToolContext } from '../agent/tool.ts';
import type { ResultWithImages, ToolImage } from '../agent/tool-images.ts';
import { takeImageBytes } from '../images/take-image.ts';
import { formatSize } from '../text/byte-size.ts';
import { truncateLine } from '../text/truncate.ts';
import { cutReadText, maxReadChars } from '../web/read-limits.ts';
import { defaultFetchLimits } from '../web/safe-fetch.ts';
import { formatCount } from '../text/count.ts';

/** A resource's contents, as `resources/read` or an embedded resource gives them. */
export interface ResourceContents {
  uri?: string;
  mimeType?: string;
  /** Some servers name embedded resources too (`name`, `title`), although the schema does not ask it. */
  name?: string;
  title?: string;
  text?: string;
  /** Bytes, base64. */
  blob?: string;
}

/** A `resource_link` content part of a tool's result. */
export interface ResourceLink {
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** How a server's resource is read (`resources/read`), bounded by the call's signal. */
export type ReadResource = (uri: string, context: ToolContext) => Promise<{ contents: ResourceContents[] }>;

/** The tool's own name, put after the server's as any of its tools' is. */
export const readResourceToolName = 'read_resource';

/** One resource's contents as the model gets them: text, with its image if it is one that can be shown. */
export interface ResourcePart {
  text: string;
  image?: ToolImage;
}

/** A link a tool returned, with what the server says of it, and the tool that opens it when there is one. */
export function describeLink(link: ResourceLink, readTool: string | null): string {
  const name = link.title ?? link.name;
  const facts = [link.mimeType, link.size === undefined ? undefined : formatSize(link.size)].filter(Boolean);
  const about = [
    name ? ` "${truncateLine(name, 200)}"` : '',
    facts.length > 0 ? ` (${facts.join(', ')})` : '',
    link.description ? `: ${truncateLine(link.description, 500)}` : '',
  ].join('');
  return `[resource link ${link.uri ?? ''}${about}${readTool ? `; read it with ${readTool}` : ''}]`;
}

/** A text MIME type, which a blob may carry too (then it is read as text). */
function isTextType(mimeType: string | undefined): boolean {
  return !!mimeType && (mimeType.startsWith('text/') || /[/+](json|xml|yaml|csv|javascript)\b/.test(mimeType));
}

/**
 * One resource's contents: a heading that names it, then its text (cut to fetch_url's length), or
 * its image, or, for other binary data, only its name, type and size.
 */
export function resourcePart(contents: ResourceContents): ResourcePart {
  const name = contents.title ?? contents.name;
  const heading = `[resource ${contents.uri ?? ''}${name ? ` "${truncateLine(name, 200)}"` : ''}${contents.mimeType ? ` (${contents.mimeType})` : ''}]`;
  if (contents.text !== undefined) return { text: `${heading}\n${cutReadText(contents.text)}` };
  const bytes = Buffer.from(contents.blob ?? '', 'base64');
  const size = formatSize(bytes.length);
  if (bytes.length > defaultFetchLimits.maxBytes)
    return {
      text: `${heading}\n[binary data, ${size}: not read, larger than ${formatSize(defaultFetchLimits.maxBytes)}]`,
    };
  if (isTextType(contents.mimeType)) return { text: `${heading}\n${cutReadText(bytes.toString('utf8'))}` };
  if (!contents.mimeType?.startsWith('image/'))
    return { text: `${heading}\n[binary data, ${size}: not shown as text]` };
  const taken = takeImageBytes('resource image', bytes);
  if (!('image' in taken)) return { text: `${heading}\n[image, ${size}: not shown, ${taken.refused}]` };
  const { mediaType, width, height } = taken.image;
  return {
    text: `${heading}\n[image, ${width}×${height}, ${size}]`,
    image: { mediaType, width, height, base64: bytes.toString('base64') },
  };
}

/** What `resources/read` returned, for the model. */
function readResult(uri: string, contents: readonly ResourceContents[]): string | ResultWithImages {
  const parts = contents.map(resourcePart);
  const text = parts.map((part) => part.text).join('\n\n') || `[resource ${uri}: empty]`;
  const images = parts.flatMap((part) => (part.image ? [part.image] : []));
  return images.length === 0 ? text : { type: 'result-with-images', text, images };
}

const readParameters = z.object({
  uri: z.string().min(1).max(2048).describe('The resource URI, exactly as the link gave it.'),
});

/** `<server>__read_resource`: reads one of the server's resources by its URI. */
export function readResourceTool(
  server: { name: string; moderatorOnly: boolean },
  agentName: string,
  read: ReadResource,
): RuntimeTool {
  return {
    ...fromZodTool({
      name: agentName,
      description: truncateLine(
        `Read a resource of the ${server.name} MCP server by its URI (a resource link one of its tools returned). ` +
          `Text comes back cut at ${formatCount(maxReadChars)} characters; images are shown to you if you can see them; other binary data is only named.`,
        1024,
      ),
      parameters: readParameters,
      moderatorOnly: server.moderatorOnly,
      execute: async (args, context) => {
        const { uri } = args as z.output<typeof readParameters>;
        return readResult(uri, (await read(uri, context)).contents);
      },
    }),
    // Only reads.
    needsConfirmation: false,
  };
}
