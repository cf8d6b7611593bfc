import { cleanContent, type Attachment, type Collection, type Message } from 'discord.js';
import { readUpTo } from '../streams/read-up-to.ts';

/** Attachments read as text: by type, or by name where the type is missing or generic. */
const textTypes = /^(text\/|application\/(json|xml|x-yaml|yaml|toml|x-sh|javascript|typescript|sql|csv))/;
const textNames =
  /\.(txt|md|markdown|json|jsonl|csv|tsv|log|ya?ml|toml|ini|xml|html?|css|js|mjs|cjs|ts|tsx|jsx|py|rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|sql|diff|patch)$/i;
const fetchTimeoutMs = 10_000;

/**
 * The text the model sees of a message: its content with the bot's own mention removed and other
 * mentions as names, then its attachments: text files read (up to `maxBytes` each), others named
 * so that the model knows they were not read.
 */
export async function messageText(
  message: Message,
  botUserId: string,
  botRoleId: string | null,
  maxBytes: number,
): Promise<string> {
  const attachments = await describeAttachments(message.attachments, maxBytes);
  return [cleanText(message, botUserId, botRoleId), ...attachments].filter((part) => part !== '').join('\n\n');
}

/** The message's own text: the bot's mentions removed, other mentions shown as names. */
export function cleanText(message: Message, botUserId: string, botRoleId: string | null): string {
  const withoutBot = message.content
    .replace(new RegExp(`<@!?${botUserId}>`, 'g'), '')
    .replace(botRoleId ? new RegExp(`<@&${botRoleId}>`, 'g') : /$^/, '');
  return cleanContent(withoutBot, message.channel).trim();
}

async function describeAttachments(attachments: Collection<string, Attachment>, maxBytes: number): Promise<string[]> {
  return Promise.all(
    [...attachments.values()].map(async (attachment) => {
      const label = `${attachment.name} (${attachment.contentType ?? 'unknown type'}, ${formatSize(attachment.size)})`;
      const isText = textTypes.test(attachment.contentType ?? '') || textNames.test(attachment.name);
      if (!isText) return `[Attachment ${label}: not read, only text files are.]`;
      if (attachment.size > maxBytes) return `[Attachment ${label}: not read, larger than ${formatSize(maxBytes)}.]`;
      try {
        const response = await fetch(attachment.url, {
          signal: AbortSignal.timeout(fetchTimeoutMs),
          redirect: 'error',
        });
        if (!response.ok) return `[Attachment ${label}: could not be read (HTTP ${response.status}).]`;
        // The size Discord reports is checked above; the body is cut again as it is read, in case it lied.
        const body = response.body === null ? new Uint8Array() : (await readUpTo(response.body, maxBytes)).bytes;
        const text = new TextDecoder('utf-8').decode(body);
        return `[Attachment ${attachment.name}]\n\`\`\`\n${text.replace(/```/g, 'ˋˋˋ')}\n\`\`\``;
      } catch {
        return `[Attachment ${label}: could not be read.]`;
      }
    }),
  );
}

function formatSize(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${Math.round(bytes / 1024)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
