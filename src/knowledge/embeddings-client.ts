/**
 * The knowledge's embeddings: any OpenAI-compatible `POST /v1/embeddings` (OpenAI, Ollama, vLLM,
 * llama.cpp's server, LM Studio …) named by EMBEDDING_MODEL and EMBEDDING_BASE_URL, spoken to
 * through the one openai adapter (src/model-servers/openai-transport.ts). Texts go in batches; a
 * failure becomes an EmbeddingsError whose message says what went wrong in words a moderator can
 * pass on, never the key.
 */
import { ModelError } from '../agent/model-error.ts';
import { createEmbeddingsTransport, shownURL } from '../model-servers/openai-transport.ts';

/** EMBEDDING_MODEL and the server's settings; null (no embeddings) when EMBEDDING_MODEL is unset. */
export interface EmbeddingsSettings {
  model: string;
  baseURL: string;
  apiKey: string | null;
  timeoutSeconds: number;
  maxRetries: number;
}

export interface EmbeddingsClient {
  /** The model's name, kept beside every vector it made. */
  readonly model: string;
  /** The most texts sent in one request. */
  readonly batchSize: number;
  /** One vector per text, in order; throws an EmbeddingsError. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * A search's question as a vector, asked once with a short timeout and no retries: someone is
   * waiting for the answer, which goes on by keywords if this fails. Without it, `embed` is used.
   */
  embedQuery?(text: string): Promise<Float32Array>;
}

/** How long a search's question may take to embed, at most (the chat model's timeout is for long answers). */
const queryTimeoutSeconds = 5;

/** Texts per request: OpenAI takes up to 2,048 inputs, small servers far fewer at once; 32 keeps each request short. */
const embeddingBatchSize = 32;

class EmbeddingsError extends Error {
  override readonly name = 'EmbeddingsError';
}

/**
 * The client of the settings; null when no embedding model is named. Documents are embedded with
 * the settings' timeout and retries; a search's question with at most `queryTimeoutSeconds` and
 * no retry (tests shorten it).
 */
export function createEmbeddingsClient(
  settings: EmbeddingsSettings | null,
  { queryTimeoutSeconds: queryTimeout = queryTimeoutSeconds }: { queryTimeoutSeconds?: number } = {},
): EmbeddingsClient | null {
  if (settings === null) return null;
  const transport = { apiKey: settings.apiKey, baseURL: settings.baseURL };
  const send = createEmbeddingsTransport({
    ...transport,
    maxRetries: settings.maxRetries,
    timeoutSeconds: settings.timeoutSeconds,
  });
  const sendQuery = createEmbeddingsTransport({
    ...transport,
    maxRetries: 0,
    timeoutSeconds: Math.min(queryTimeout, settings.timeoutSeconds),
  });
  const server = shownURL(settings.baseURL, settings.apiKey);
  const embedWith = async (sender: typeof send, texts: readonly string[], signal: AbortSignal) => {
    let vectors: number[][];
    try {
      vectors = await sender(settings.model, [...texts], signal);
    } catch (error) {
      throw new EmbeddingsError(`the embedding server (${server}) ${failureOf(error)}`, { cause: error });
    }
    if (vectors.length !== texts.length || !vectors.every(isVector))
      throw new EmbeddingsError(
        `the embedding server (${server}) answered ${vectors.length} vectors of numbers for ${texts.length} texts: it may not be an embeddings endpoint`,
      );
    return vectors.map((vector) => Float32Array.from(vector));
  };
  return {
    model: settings.model,
    batchSize: embeddingBatchSize,
    embed: (texts, signal = new AbortController().signal) => embedWith(send, texts, signal),
    embedQuery: async (text) => (await embedWith(sendQuery, [text], new AbortController().signal))[0]!,
  };
}

/**
 * Whether an embedding failed because the server is out of reach or overloaded (refused, timed
 * out, a 5xx, a 429): worth not asking again for a while. A refused key or an unknown model is not.
 */
export function isEmbeddingsOutage(error: unknown): boolean {
  const cause = error instanceof EmbeddingsError ? error.cause : error;
  return (
    cause instanceof ModelError &&
    (cause.kind === 'unavailable' || cause.kind === 'rate-limited' || cause.kind === 'quota-exceeded')
  );
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number');
}

/** What went wrong, in words: the model unknown, the key refused, the server out of reach. */
function failureOf(error: unknown): string {
  if (!(error instanceof ModelError)) return `failed: ${error instanceof Error ? error.message : String(error)}`;
  switch (error.kind) {
    case 'model-not-found':
      return 'does not know EMBEDDING_MODEL';
    case 'bad-credentials':
      return 'refused the key (EMBEDDING_API_KEY)';
    case 'wrong-endpoint':
      return 'has no /embeddings endpoint at EMBEDDING_BASE_URL';
    case 'unavailable':
      return `could not be reached or did not answer in time (${error.message})`;
    default:
      return `refused the request (${error.message})`;
  }
}
