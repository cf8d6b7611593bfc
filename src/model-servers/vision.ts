/**
 * Whether the model sees images (MODEL_VISION): as set, or for `auto` from what `npm run doctor`
 * found, then from the provider profile and the model's name. An unknown model gets no images: a
 * text model sent one fails the request (a 400) or pretends to see it, both worse than being told.
 */
import { type ImageTokenRule, imageTokenRule } from '../images/image-tokens.ts';
import type { ProviderProfile } from './profiles/profile.ts';
import type { ServerRecord } from './server-records.ts';
import { readCheckup } from './server-summary.ts';

/** MODEL_VISION. */
export type VisionSetting = 'auto' | 'on' | 'off';

export interface Vision {
  enabled: boolean;
  /** Why, for the start-up log. */
  reason: string;
}

/**
 * Model families that take images, by name (hosted and local). Sources: OpenAI's models pages
 * (https://platform.openai.com/docs/models), Ollama's vision models
 * (https://ollama.com/search?c=vision), Gemini's models (https://ai.google.dev/gemini-api/docs/models).
 */
const seeing = [
  /^(chatgpt-)?gpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-5/,
  /^gpt-4-(turbo|vision)/,
  /^o1(?!-mini)(-|$)/,
  /^o3(?!-mini)(-|$)/,
  /^o4/,
  /^gemini/,
  /^gemma-?3(?!.*:1b)/,
  /^claude-(3|sonnet|opus|haiku)/,
  /llava/,
  /vision/,
  /(^|[-_.:])vl([-_.:]|$)/,
  /qwen[\d.]*-?vl/,
  /pixtral/,
  /minicpm-v/,
  /moondream/,
  /llama-?4/,
  /mistral-(small|medium)-?3\.[1-9]/,
];

/**
 * Whether the model sees images, and why. `stated`: what MODELS_FILE says of this model (`vision:`),
 * null when it says nothing; MODEL_VISION=on or off overrides it for every model.
 */
export function resolveVision(input: {
  setting: VisionSetting;
  profile: ProviderProfile;
  model: string;
  record: ServerRecord | null;
  stated?: boolean | null;
}): Vision {
  if (input.setting === 'on') return { enabled: true, reason: 'MODEL_VISION=on' };
  if (input.setting === 'off') return { enabled: false, reason: 'MODEL_VISION=off' };
  if (input.stated === true || input.stated === false)
    return { enabled: input.stated, reason: `MODELS_FILE says vision: ${input.stated}` };
  if (input.record?.learned.images === false)
    return { enabled: false, reason: 'the model refused an image in a request (remembered)' };
  const checked = readCheckup(input.record?.checkup ?? null)?.rows.find((row) => row.check === 'images');
  if (checked?.status === 'ok') return { enabled: true, reason: 'npm run doctor: the model took an image' };
  if (checked?.status === 'gap') return { enabled: false, reason: 'npm run doctor: the model refused an image' };
  if (input.profile.honours.images === 'no') return { enabled: false, reason: `${input.profile.name} takes no images` };
  const name = input.model.toLowerCase().replace(/^.*\//, '');
  if (seeing.some((pattern) => pattern.test(name))) return { enabled: true, reason: `${input.model} sees images` };
  return {
    enabled: false,
    reason: `${input.model} is not known to see images (set MODEL_VISION=on if it does, or run npm run doctor)`,
  };
}

/**
 * Vision as a process uses it: whether the model sees images, and the memory settings that show
 * them (counted by the provider's rule), or show none.
 */
export function visionSetup(input: {
  setting: VisionSetting;
  profile: ProviderProfile;
  model: string;
  record: ServerRecord | null;
  stated?: boolean | null;
}): { vision: Vision; imageTokens?: ImageTokenRule } {
  const vision = resolveVision(input);
  return vision.enabled ? { vision, imageTokens: imageTokenRule(input.profile.id, input.model) } : { vision };
}
