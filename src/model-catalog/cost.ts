/**
 * What tokens cost, from a model's price in MODELS_FILE (dollars per million tokens): the one place
 * that computes and writes it, for `/usage` and the log channel's run cards.
 */
import type { ModelListing } from './model-catalog.ts';

/**
 * The cost in dollars of these tokens at the model's price; null when the file gives no price. The
 * prompt tokens a server took from its cache cost the cached-input price where the file gives one
 * (OpenAI bills them at a fraction: https://platform.openai.com/docs/guides/prompt-caching).
 */
export function costOf(
  price: ModelListing['price'],
  promptTokens: number,
  completionTokens: number,
  cachedTokens = 0,
): number | null {
  if (!price) return null;
  const cached = Math.min(cachedTokens, promptTokens);
  return (
    ((promptTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      completionTokens * price.output) /
    1_000_000
  );
}

/** "$0.12", or "less than $0.01" for a cost that would round to nothing. */
export function formatCost(dollars: number): string {
  return dollars < 0.01 ? 'less than $0.01' : `$${dollars.toFixed(2)}`;
}
