/**
 * What a span says of the server a model is on: the GenAI provider's name and the server's address,
 * from the models on offer (MODELS_FILE, or the OPENAI_* settings). Loaded only with the export.
 */
import type { ProviderId } from '../model-servers/profiles/index.ts';
import { profileFor } from '../model-servers/profiles/index.ts';

/** A model's server as the GenAI conventions name it. */
export interface ModelServerSeen {
  provider: string;
  address: string;
  port: number;
}

/** A model on offer: its id, where it is served, and the profile set for it (if any). */
export interface OfferedModel {
  model: string;
  baseURL: string;
  provider?: ProviderId | 'auto';
}

/**
 * The well-known `gen_ai.provider.name` values of our profiles
 * (https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/#gen-ai-provider-name);
 * a server with none (Ollama, vLLM, …) is named by its profile, as the conventions allow. v1.36's
 * `gen_ai.system` spelt Azure `az.ai.openai`.
 */
const wellKnown: Partial<Record<ProviderId, { latest: string; v1_36: string }>> = {
  openai: { latest: 'openai', v1_36: 'openai' },
  azure: { latest: 'azure.ai.openai', v1_36: 'az.ai.openai' },
  gemini: { latest: 'gcp.gemini', v1_36: 'gcp.gemini' },
  groq: { latest: 'groq', v1_36: 'groq' },
  mistral: { latest: 'mistral_ai', v1_36: 'mistral_ai' },
  deepseek: { latest: 'deepseek', v1_36: 'deepseek' },
};

/** Looks a model id up among the models on offer; the first one that serves it. */
export function modelServersSeen(
  models: readonly OfferedModel[],
  latestConventions: boolean,
): (model: string) => ModelServerSeen | null {
  const seen = new Map<string, ModelServerSeen>();
  for (const offered of models) {
    if (seen.has(offered.model)) continue;
    const profile = profileFor(offered.provider ?? 'auto', offered.baseURL);
    const names = wellKnown[profile.id as ProviderId];
    const url = new URL(offered.baseURL);
    seen.set(offered.model, {
      provider: names ? (latestConventions ? names.latest : names.v1_36) : profile.id,
      address: url.hostname,
      port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    });
  }
  return (model) => seen.get(model) ?? null;
}
