/**
 * What an image costs in the model's context, by the provider's rule, so that the memory window
 * can count images as it counts text. A rule is an estimate where a provider publishes none
 * (local servers: their vision encoders differ by model); OpenAI's is then used.
 */

/** How a provider counts an image of `width` × `height` pixels. */
export type ImageTokenRule = (width: number, height: number) => number;

/**
 * OpenAI, GPT-4o family (detail high; `auto` is counted as high, its upper bound): fit within
 * 2048 × 2048, then the shorter side scaled to 768; 170 tokens per 512 px tile plus 85. Detail low
 * is a flat 85. https://platform.openai.com/docs/guides/images-vision#calculating-costs
 */
export const openAITiles: ImageTokenRule = (width, height) => {
  let [w, h] = [width, height];
  const fit = Math.min(1, 2048 / Math.max(w, h));
  [w, h] = [w * fit, h * fit];
  const shorter = Math.min(1, 768 / Math.min(w, h));
  [w, h] = [w * shorter, h * shorter];
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
};

/**
 * OpenAI, GPT-4.1-mini, GPT-4.1-nano and o4-mini: 32 px patches, at most 1,536 (the image scaled
 * down to fit, whole patches kept), times the model's multiplier.
 * https://platform.openai.com/docs/guides/images-vision#calculating-costs
 */
export function openAIPatches(multiplier: number): ImageTokenRule {
  return (width, height) => {
    const cap = 1536;
    let patches = Math.ceil(width / 32) * Math.ceil(height / 32);
    if (patches > cap) {
      let shrink = Math.sqrt((32 * 32 * cap) / (width * height));
      shrink *= Math.min(
        Math.floor((width * shrink) / 32) / ((width * shrink) / 32),
        Math.floor((height * shrink) / 32) / ((height * shrink) / 32),
      );
      patches = Math.min(cap, Math.ceil((width * shrink) / 32) * Math.ceil((height * shrink) / 32));
    }
    return Math.ceil(patches * multiplier);
  };
}

/**
 * Gemini: 258 tokens for an image of at most 384 px on both sides, else 258 per 768 px tile.
 * https://ai.google.dev/gemini-api/docs/tokens#multimodal-tokens
 */
export const geminiTiles: ImageTokenRule = (width, height) =>
  width <= 384 && height <= 384 ? 258 : 258 * Math.ceil(width / 768) * Math.ceil(height / 768);

/** The rule for a provider (profile id) and model. */
export function imageTokenRule(provider: string, model: string): ImageTokenRule {
  const name = model.toLowerCase().replace(/^.*\//, '');
  if (provider === 'gemini' || name.startsWith('gemini')) return geminiTiles;
  if (name.startsWith('gpt-4.1-mini')) return openAIPatches(1.62);
  if (name.startsWith('gpt-4.1-nano')) return openAIPatches(2.46);
  if (name.startsWith('o4-mini')) return openAIPatches(1.72);
  return openAITiles;
}
