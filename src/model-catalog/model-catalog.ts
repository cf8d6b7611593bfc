/**
 * The models the bot may use at once, each with its own client (a client remembers what it learns
 * per server and model), all waiting in one line of model calls (MAX_CONCURRENT_RUNS).
 */
import type { LimitedModelClient } from '../agent/limit-model-calls.ts';
import type { ModelClient } from '../agent/model-client.ts';
import type { ModelEntry, ModelsConfig } from './model-entry.ts';

/** What people are told of a model (its client options stay with the operator). */
export type ModelListing = Omit<ModelEntry, 'client'>;

/** A model client a run may use; with `turn` when it waits in the line of model calls. */
export type RunModelClient = ModelClient & Partial<Pick<LimitedModelClient, 'turn'>>;

export interface ModelCatalog {
  readonly entries: readonly ModelListing[];
  readonly defaultName: string;
  entry(name: string): ModelListing | undefined;
  /** The client of the model of that name; the default's for a name no longer offered. */
  clientFor(name: string): RunModelClient;
}

/** One model, the client given: what a bot without MODELS_FILE (and a test) has. */
export function singleModelCatalog(client: RunModelClient): ModelCatalog {
  const listing: ModelListing = {
    name: client.model,
    description: '',
    vision: null,
    contextTokens: null,
    price: null,
  };
  return {
    entries: [listing],
    defaultName: listing.name,
    entry: (name) => (name === listing.name ? listing : undefined),
    clientFor: () => client,
  };
}

/** Builds one client per model with `makeClient`, each limited by `line`. */
export function modelCatalog(
  config: ModelsConfig,
  makeClient: (entry: ModelEntry) => ModelClient,
  line: { limit(client: ModelClient): LimitedModelClient },
): ModelCatalog {
  const clients = new Map(config.models.map((entry) => [entry.name, line.limit(makeClient(entry))]));
  return {
    entries: config.models.map(({ client: _client, ...listing }) => listing),
    defaultName: config.defaultName,
    entry: (name) => config.models.find((entry) => entry.name === name),
    clientFor: (name) => clients.get(name) ?? clients.get(config.defaultName)!,
  };
}
