/**
 * The server knowledge's settings, read with the others by config.ts: the embedding model and its
 * server (EMBEDDING_*; none named: BM25 alone), and the caps on what a document and a server's
 * knowledge may hold. EMBEDDING_API_KEY is a secret: config-from-settings.ts adds it to the values
 * the logger masks, and a problem never echoes it.
 */
import { z } from 'zod';
import type { EmbeddingsSettings } from '../knowledge/embeddings-client.ts';
import { blankToUndefined, type Environment, optionalHttpUrl, optionalText, whole } from './setting-fields.ts';

/** The settings' fields, spread into the schema of settings-schema.ts. */
export const knowledgeFields = {
  EMBEDDING_MODEL: optionalText(),
  EMBEDDING_BASE_URL: optionalHttpUrl(),
  EMBEDDING_API_KEY: optionalText(),
  KNOWLEDGE_MAX_DOCUMENT_CHARACTERS: whole(1_000, 100_000_000, 2_000_000),
  KNOWLEDGE_MAX_SERVER_CHARACTERS: whole(1_000, 1_000_000_000, 20_000_000),
};

type Values = z.output<z.ZodObject<typeof knowledgeFields>>;

/** What the knowledge is built with (src/knowledge/knowledge-base.ts). */
export interface KnowledgeSettings {
  /** null: no EMBEDDING_MODEL, the knowledge is searched by BM25 alone. */
  embeddings: EmbeddingsSettings | null;
  maxDocumentCharacters: number;
  maxServerCharacters: number;
}

/**
 * The knowledge's settings. Without EMBEDDING_BASE_URL, embeddings go to the chat model's server
 * (OPENAI_BASE_URL) with its key; with it, to that server with EMBEDDING_API_KEY alone (the chat
 * model's key is never sent to another server).
 */
export function knowledgeFrom(
  values: Values,
  chat: { baseURL: string; apiKey: string | null; timeoutSeconds: number; maxRetries: number },
): KnowledgeSettings {
  const embeddings: EmbeddingsSettings | null =
    values.EMBEDDING_MODEL === undefined
      ? null
      : {
          model: values.EMBEDDING_MODEL,
          baseURL: values.EMBEDDING_BASE_URL ?? chat.baseURL,
          apiKey: values.EMBEDDING_BASE_URL === undefined ? chat.apiKey : (values.EMBEDDING_API_KEY ?? null),
          timeoutSeconds: chat.timeoutSeconds,
          maxRetries: chat.maxRetries,
        };
  return {
    embeddings,
    maxDocumentCharacters: values.KNOWLEDGE_MAX_DOCUMENT_CHARACTERS,
    maxServerCharacters: values.KNOWLEDGE_MAX_SERVER_CHARACTERS,
  };
}

/** The embedding server named without a model: nothing would use it, which the operator did not mean. */
export function knowledgeProblems(merged: Environment): string[] {
  const named = ['EMBEDDING_BASE_URL', 'EMBEDDING_API_KEY'].filter(
    (name) => blankToUndefined(merged[name]) !== undefined,
  );
  return named.length > 0 && blankToUndefined(merged.EMBEDDING_MODEL) === undefined
    ? [
        `${named.join(' and ')} ${named.length > 1 ? 'need' : 'needs'} EMBEDDING_MODEL: name the embedding model, or unset them`,
      ]
    : [];
}

/** The settings that hold a key: never echoed in a problem, masked in every log line. */
export const knowledgeKeyNames: ReadonlySet<string> = new Set(['EMBEDDING_API_KEY']);
