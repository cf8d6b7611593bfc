/**
 * The provider profiles, and the one list of them: MODEL_PROVIDER's values are read from it.
 * Adding a provider whose quirks fit the fixes there are (server-fixes.ts): one profile file here
 * and one line in this list, plus its docs (COMPATIBILITY.md, README's MODEL_PROVIDER row,
 * .env.example) and its test rows (test/model-servers/profiles.test.ts, and the list of ids in
 * test/model-catalog/models-file.test.ts). A new quirk of a server's errors: one row, with its
 * source, in adaptation-rules.ts.
 */
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
import type { ProviderProfile } from './profile.ts';
import { vllm } from './vllm.ts';

/** Every profile; hosts are checked before ports, and `generic` matches what none other does. */
const profiles = [
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
] as const;

/** A MODEL_PROVIDER value other than `auto`: a profile's id. */
export type ProviderId = (typeof profiles)[number]['id'];

/** The profiles' ids, in their order (MODEL_PROVIDER's values and the models file's `provider`). */
export const providerIds: readonly ProviderId[] = profiles.map((profile) => profile.id);

/** The profile MODEL_PROVIDER names, or (for `auto`) the one OPENAI_BASE_URL's host or port points to. */
export function profileFor(provider: ProviderId | 'auto', baseURL: string): ProviderProfile {
  if (provider !== 'auto') return profiles.find((profile) => profile.id === provider)!;
  const url = new URL(baseURL);
  return profiles.find((profile) => profile.matches(url))!;
}
