/**
 * Chat messages in the OpenAI chat-completions shape, so that the adapter passes them through
 * without converting them, and any OpenAI-compatible server understands them.
 */

/** One function call the model asked for. `arguments` is the raw JSON text the model wrote. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  /**
   * What the server attached to the call and needs back with it on the next turn, kept as received
   * (Gemini's thought signature: `{ google: { thought_signature } }`).
   */
  extra_content?: Record<string, unknown>;
}

interface SystemMessage {
  role: 'system';
  content: string;
}

/** Text in a user message made of parts. */
interface TextPart {
  type: 'text';
  text: string;
}

/**
 * An image in a user message, as a `data:` URL (https://platform.openai.com/docs/guides/images-vision):
 * Discord's attachment links are signed and expire
 * (https://discord.com/developers/docs/reference#signed-attachment-cdn-urls), and a local model
 * server may not reach the internet to fetch one.
 */
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string };
}

/** The image part of `base64` bytes of type `mediaType`, inline as the chat API takes it. */
/** An image's bytes (base64) as a `data:` URL, as the chat API and the moderation endpoint take images. */
export function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

export function imagePart(mediaType: string, base64: string): ImagePart {
  return { type: 'image_url', image_url: { url: dataUrl(mediaType, base64) } };
}

/** A part of a user message: text or an image. */
export type UserContentPart = TextPart | ImagePart;

/** A person's words: text, or (with images) parts, OpenAI's content-part array. */
export interface UserMessage {
  role: 'user';
  content: string | UserContentPart[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  /**
   * The model's thinking, when the server gave it (a reasoning field, or `<think>` taken out of the
   * content). Kept in the step log, never posted; sent back only to servers that need it.
   */
  reasoning?: string;
}

/** The answer to exactly one tool call; every `tool_call_id` must get exactly one. */
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** A user message's text, its parts' text joined (images left out). */
export function userText(content: UserMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Tokens used by one model call, or summed over a run. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of the prompt tokens, those the server took from its cache, where it says so (absent where it does not). */
  cachedPromptTokens?: number;
}

export const noUsage: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage | null): TokenUsage {
  if (b === null) return a;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(a.cachedPromptTokens !== undefined || b.cachedPromptTokens !== undefined
      ? { cachedPromptTokens: (a.cachedPromptTokens ?? 0) + (b.cachedPromptTokens ?? 0) }
      : {}),
  };
}
