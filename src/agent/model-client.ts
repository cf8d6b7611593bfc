import type { AssistantMessage, ChatMessage, TokenUsage } from './messages.ts';

/** A function the model may call, in the chat-completions `tools` form. Built once per tool. */
export interface FunctionSpec {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
    strict: boolean;
  };
}

/** `required`: some tool must be called. `{ name }`: that tool must be called. */
export type ToolChoice = 'required' | { name: string };

export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools: readonly FunctionSpec[];
  toolChoice: ToolChoice;
  /**
   * The conversation the request continues: a server that routes requests by a key to where their
   * prompt is cached (OpenAI's `prompt_cache_key`) is given it, where its profile says so.
   */
  cacheKey?: string;
}

export interface ModelResponse {
  /** The assistant's message, reduced to role, content and tool calls. */
  message: AssistantMessage;
  usage: TokenUsage | null;
  finishReason: string | null;
  /** The model name the server reports having used. */
  model: string;
  /**
   * The server refused the tool call the model wrote (it could not be parsed, or did not fit the
   * schema): why, in words for the model. The message holds what the model wrote; the loop sends
   * the problem back as an observation.
   */
  rejectedCall?: string;
}

/** What a caller may watch of a model call while the reply is being written (a streamed reply). */
export interface ModelCallObserver {
  /** A tool call's arguments so far: its place in the reply, its name, and all its arguments yet. */
  toolArguments?(call: { index: number; name: string; arguments: string }): void;
}

/**
 * All the agent loop knows of the model. One adapter implements it with the openai client; it
 * throws `ModelError` for failures of the model service, and an `AbortError` when `signal` fires.
 */
export interface ModelClient {
  readonly model: string;
  /** `observe`: the client may stream the reply and tell it as it comes; the result is the same. */
  complete(request: ModelRequest, signal: AbortSignal, observe?: ModelCallObserver): Promise<ModelResponse>;
}
