import type { OpenAIModelClientOptions } from '../model-servers/openai-model-client.ts';

/** One model the bot may use: how to reach it, and what moderators are told of it. */
export interface ModelEntry {
  /** What moderators pick (`/settings model`, `/model`), and what the step log and `/usage` show. */
  name: string;
  description: string;
  client: OpenAIModelClientOptions;
  /** Whether it reads images, as MODELS_FILE says (`vision:`); null when it says nothing (MODEL_VISION=auto decides). */
  vision: boolean | null;
  /** Its context window in tokens, when the operator gave it. */
  contextTokens: number | null;
  /** US dollars per million tokens, for `/usage`; null when not given. `cachedInput`: of a prompt token a server took from its cache. */
  price: { input: number; output: number; cachedInput?: number } | null;
}

/** The models of MODELS_FILE (or the one of the OPENAI_* settings), and the one used unless chosen otherwise. */
export interface ModelsConfig {
  models: ModelEntry[];
  defaultName: string;
}
