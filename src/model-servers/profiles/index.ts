import { azure } from './azure.ts';
import { deepseek } from './deepseek.ts';
import { gemini } from './gemini.ts';
import { generic } from './generic.ts';
import { groq } from './groq.ts';
import { llamacpp } from './llamacpp.ts';
import { lmstudio } from './lmstudio.ts';
import { mistral } from './mistral.ts';
import { ollama } from './ollama.ts';
import { openai } from './openai.ts';
import { openrouter } from './openrouter.ts';
import type { ProviderId, ProviderProfile } from './profile.ts';
import { vllm } from './vllm.ts';

/** Every profile; hosts are checked before ports, and `generic` matches what none other does. */
export const profiles: readonly ProviderProfile[] = [
  openai,
  azure,
  groq,
  openrouter,
  gemini,
  mistral,
  deepseek,
  ollama,
  llamacpp,
  vllm,
  lmstudio,
  generic,
];

/** The profile MODEL_PROVIDER names, or (for `auto`) the one OPENAI_BASE_URL's host or port points to. */
export function profileFor(provider: ProviderId | 'auto', baseURL: string): ProviderProfile {
  if (provider !== 'auto') return profiles.find((profile) => profile.id === provider)!;
  const url = new URL(baseURL);
  return profiles.find((profile) => profile.matches(url))!;
}
