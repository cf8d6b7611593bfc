/**
 * What one post to a log channel holds: up to Discord's 10 embeds within its 6,000 characters,
 * the oldest cards first, a summary first when a burst outgrew the backlog, and a "Steps" button
 * per run. https://discord.com/developers/docs/resources/message#embed-object-embed-limits
 */
import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponent } from 'discord.js';
import type { LogOutboxRow } from '../../../db/log-outbox.ts';
import type { LogCard } from '../../moderator-log/log-entry.ts';
import { parseLogEntry } from '../../moderator-log/log-entry.ts';
import { type CardSources, renderCard, summaryCard } from '../../moderator-log/log-cards.ts';

const maxEmbeds = 10;
const maxEmbedCharacters = 6000;
/** Run cards a server's outbox keeps waiting: beyond it, the oldest are summarised (60 posts ≈ a minute at the pace). */
const maxBacklog = 600;

/** One post: its cards, and the outbox rows it settles once posted. */
export interface LogBatch {
  cards: LogCard[];
  settles: number[];
}

/** Builds the next post of a server from its outbox, or null when nothing is left to post. */
export function nextBatch(
  outbox: { oldest(guildId: string, limit: number): LogOutboxRow[]; count(guildId: string): number },
  guildId: string,
  sources: CardSources,
): LogBatch | null {
  const cards: LogCard[] = [];
  const settles: number[] = [];
  const overflow = outbox.count(guildId) - maxBacklog;
  if (overflow > 0) {
    // Only runs are summarised: /steps keeps them all; a report or a setting change is always shown.
    const skipped = outbox.oldest(guildId, overflow).filter((row) => parseLogEntry(row.entry)?.kind === 'run');
    if (skipped.length > 0) {
      cards.push(summaryCard(skipped.length));
      settles.push(...skipped.map((row) => row.id));
    }
  }
  let characters = cards.reduce((sum, card) => sum + cardCharacters(card), 0);
  const skippedIds = new Set(settles);
  for (const row of outbox.oldest(guildId, maxEmbeds + settles.length)) {
    if (skippedIds.has(row.id)) continue;
    if (cards.length >= maxEmbeds) break;
    const entry = parseLogEntry(row.entry);
    const card = entry ? renderCard(entry, sources, row.created_at) : null;
    if (card && characters + cardCharacters(card) > maxEmbedCharacters) break;
    settles.push(row.id); // A card that cannot be rendered (its run deleted since) is settled too.
    if (!card) continue;
    cards.push(card);
    characters += cardCharacters(card);
  }
  return settles.length > 0 ? { cards, settles } : null;
}

/** What counts toward an embed's 6,000 characters: title, description, fields, footer. */
function cardCharacters(card: LogCard): number {
  return (
    card.title.length +
    (card.description?.length ?? 0) +
    (card.footer?.text.length ?? 0) +
    (card.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0)
  );
}

/** The custom id of a "Steps" button: the `/steps` command takes its press (commands/log-steps-button.ts). */
const stepsButtonId = (runId: string) => `steps:run:${runId}`;

/** The message body of a post: embeds, a "Steps" button per run (five to a row), and no pings at all. */
export function postBody(batch: LogBatch, nonce: string) {
  const runs = [...new Set(batch.cards.flatMap((card) => (card.stepsOf ? [card.stepsOf] : [])))];
  const buttons: APIButtonComponent[] = runs.map((runId) => ({
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    label: `Steps · ${runId.slice(0, 8)}`,
    custom_id: stepsButtonId(runId),
  }));
  const rows: APIActionRowComponent<APIButtonComponent>[] = [];
  for (let index = 0; index < buttons.length; index += 5)
    rows.push({ type: ComponentType.ActionRow, components: buttons.slice(index, index + 5) });
  return {
    embeds: batch.cards.map(({ stepsOf: _, ...embed }) => embed),
    components: rows,
    allowed_mentions: { parse: [] },
    nonce,
    enforce_nonce: true,
  };
}
