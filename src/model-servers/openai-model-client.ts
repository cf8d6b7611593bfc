/**
 * The model client the bot, the terminal chat and the benches use: any OpenAI-compatible server,
 * spoken to as its provider profile says (MODEL_PROVIDER, or found from OPENAI_BASE_URL), adapting
 * to what it learns of it (remembered in `records`).
 */
import { type Logger, silentLogger } from '../agent/logger.ts';
import type { ModelClient } from '../agent/model-client.ts';
import { createOpenAITransport } from './openai-transport.ts';
import { type ProviderId, profileFor } from './profiles/index.ts';
import type { ToolProtocol } from './server-fixes.ts';
import { type ServerRecords, recordsInMemory } from './server-records.ts';
import { createServerClient } from './server-client.ts';

export interface OpenAIModelClientOptions {
  apiKey: string | null;
  baseURL: string;
  model: string;
  temperature: number;
  /** The SDK's retries after the first attempt. */
  maxRetries: number;
  /** Time limit of one HTTP attempt. */
  timeoutSeconds: number;
  /** The longest Retry-After the client will sleep through before retrying. */
  maxRetryWaitSeconds: number;
  /** The server's profile (MODEL_PROVIDER); `auto` when not given: found from the base URL. */
  provider?: ProviderId | 'auto';
  /** TOOL_PROTOCOL: `auto` (learned) when not given. */
  toolProtocol?: ToolProtocol | 'auto';
}

export function createOpenAIModelClient(
  options: OpenAIModelClientOptions,
  remember: { records?: ServerRecords; logger?: Logger } = {},
): ModelClient {
  const profile = profileFor(options.provider ?? 'auto', options.baseURL);
  const connection = profile.connection?.(options.baseURL, options.apiKey) ?? { baseURL: options.baseURL };
  return createServerClient({
    transport: createOpenAITransport({ ...options, ...connection }),
    server: options.baseURL,
    model: options.model,
    temperature: options.temperature,
    profile,
    records: remember.records ?? recordsInMemory(),
    toolProtocol: options.toolProtocol ?? 'auto',
    logger: remember.logger ?? silentLogger,
    apiKey: options.apiKey,
  });
}
