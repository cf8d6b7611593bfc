/**
 * What tokens cost, from a model's price in MODELS_FILE (dollars per million tokens): the one place
 * that computes and writes it, for `/usage` and the log channel's run cards.
 */
import type { ModelListing } from './model-catalog.ts';

/** The cost in dollars of these tokens at the model's price; null when the file gives no price. */
export function costOf(price: ModelListing['price'], promptTokens: number, completionTokens: number): number | null {
  return price ? (promptTokens * price.input + completionTokens * price.output) / 1_000_000 : null;
}

/** "$0.12", or "less than $0.01" for a cost that would round to nothing. */
export function formatCost(dollars: number): string {
  return dollars < 0.01 ? 'less than $0.01' : `$${dollars.toFixed(2)}`;
}
