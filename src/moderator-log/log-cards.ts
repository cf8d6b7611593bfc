/**
 * Every kind of log entry as a card (a compact embed readable on a phone), and the summary that
 * stands for runs a burst would not let through. Runs' cards are read from the step log
 * (run-card.ts); the other kinds carry what they show.
 */
import type { Store } from '../../db/store.ts';
import type { ModelCatalog } from '../model-catalog/model-catalog.ts';
import { countsInWords } from '../text/count.ts';
import { truncateLine } from '../text/truncate.ts';
import type { LogCard, LogEntry, LoggedPerson } from './log-entry.ts';
import { cardColors, renderRunCard } from './run-card.ts';

/** What rendering reads: the step log, and the models' prices. */
export interface CardSources {
  store: Pick<Store, 'runs' | 'steps' | 'conversations' | 'messages'>;
  models: Pick<ModelCatalog, 'entry'>;
}

const who = (person: LoggedPerson) => `<@${person.id}> (${truncateLine(person.name, 40)})`;
const place = (scope: string, scopeId: string) => (scope === 'server' ? 'the server' : `<#${scopeId}>`);
const runFooter = (runId: string | null) => (runId ? { footer: { text: `run ${runId.slice(0, 8)}` } } : {});

/** An entry's card; null when what it shows is no longer on record (a run deleted since). */
const destructiveTitles = {
  confirmed: '⚠️ Confirmed',
  cancelled: '↩️ Cancelled',
  'timed-out': '⌛ Not confirmed in time',
} as const;

export function renderCard(entry: LogEntry, sources: CardSources, at: number): LogCard | null {
  const timestamp = new Date(at).toISOString();
  switch (entry.kind) {
    case 'run':
      return renderRunCard(sources.store, sources.models, entry.runId);
    case 'settings':
      return {
        title: '⚙️ Settings changed',
        description: truncateLine(`by ${who(entry.by)}`, 200),
        color: cardColors.info,
        fields: [
          {
            name: 'Changes',
            value: entry.changes
              .slice(0, 8)
              .map((change) =>
                truncateLine(
                  `${change.key} ${change.value === null ? 'cleared' : `= ${change.key === 'log_channel' ? `<#${change.value}>` : change.value}`} for ${place(change.scope, change.scopeId)}`,
                  100,
                ),
              )
              .join('\n'),
          },
        ],
        timestamp,
      };
    case 'refused':
      return {
        title: '⛔ Not answered',
        description: truncateLine(`${who(entry.who)} in <#${entry.channelId}>: ${entry.reason}`, 300),
        color: cardColors.warn,
        timestamp,
      };
    case 'report':
      return {
        title: '🚩 Answer reported',
        description: [
          truncateLine(`by ${who(entry.reporter)}${entry.reason ? `: ${entry.reason}` : ''}`, 300),
          ...(entry.answerLink ? [`[the answer reported](${entry.answerLink})`] : []),
        ].join('\n'),
        color: cardColors.warn,
        ...runFooter(entry.runId),
        timestamp,
        stepsOf: entry.runId,
      };
    default:
      return renderChecks(entry, timestamp);
  }
}

/** The cards of what a check stopped or a person decided: flags, refused tools, destructive tools, /forget-me; a scheduled run not started. */
function renderChecks(
  entry: Exclude<LogEntry, { kind: 'run' | 'refused' | 'settings' | 'report' }>,
  timestamp: string,
): LogCard {
  switch (entry.kind) {
    case 'flag':
      return {
        title: `🛑 ${entry.part === 'question' ? 'Question' : 'Answer'} flagged`,
        description: truncateLine(
          `in <#${entry.channelId}>: ${entry.categories.map((category) => `${category.name}${category.score === null ? '' : ` ${category.score.toFixed(2)}`}`).join(', ') || 'no category given'}`,
          300,
        ),
        color: cardColors.bad,
        ...runFooter(entry.runId),
        timestamp,
        ...(entry.runId ? { stepsOf: entry.runId } : {}),
      };
    case 'tool-refused':
      return {
        title: `🚫 Tool refused: ${truncateLine(entry.tool, 60)}`,
        description: truncateLine(`in <#${entry.channelId}>: ${entry.reason}`, 300),
        color: cardColors.warn,
        ...runFooter(entry.runId),
        timestamp,
      };
    case 'destructive':
      return {
        title: `${destructiveTitles[entry.outcome]}: ${truncateLine(entry.tool, 60)}`,
        description: truncateLine(
          `${entry.outcome === 'timed-out' ? 'asked of' : 'by'} ${who(entry.by)} in <#${entry.channelId}>`,
          300,
        ),
        color: entry.outcome === 'confirmed' ? cardColors.warn : cardColors.info,
        ...runFooter(entry.runId),
        timestamp,
      };
    case 'forget':
      return {
        title: '🧹 /forget-me',
        description: truncateLine(`${who(entry.member)}: ${countsInWords(entry.counts)}`, 300),
        color: cardColors.info,
        timestamp,
      };
    case 'schedule-failed':
      return {
        title: `⏰ Scheduled run not started: ${truncateLine(entry.name, 60)}`,
        description: truncateLine(`schedule ${entry.scheduleId} in <#${entry.channelId}>: ${entry.reason}`, 300),
        color: cardColors.bad,
        timestamp,
      };
  }
}

/** The card that stands for runs a burst would not let through: /steps has every one of them. */
export function summaryCard(skippedRuns: number): LogCard {
  return {
    title: `…and ${skippedRuns} more run${skippedRuns === 1 ? '' : 's'}: \`/steps\``,
    description: 'Too many at once for the log channel: their cards were left out. Their step logs are kept.',
    color: cardColors.info,
  };
}
