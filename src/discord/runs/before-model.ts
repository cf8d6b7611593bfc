/**
 * The seat before the model: what every run passes before its memory window is loaded and its model
 * called, whichever path it came by: new messages (answer-new-messages.ts), a run resumed after a
 * crash, an answer a cut-off run had reached (resume-run.ts). Each entry is one policy; a new
 * policy is a new entry here, not an edit of the paths. The daily budget is not an entry: it is
 * checked at the model's turn (run-in-discord.ts `admit`), so that messages that arrived together
 * all pass it before any run is charged.
 */
import type { ConversationRow } from '../../../db/conversations.ts';
import type { MessageWork } from '../../conversation/queued-work.ts';
import type { PlaceChoice } from '../../place-settings/place-choice.ts';
import type { BotServices } from '../bot-services.ts';
import { checkNewMessages, type TellAuthor } from './message-check.ts';

/** A run about to reach its model: where, what applies there, and what it answers. */
export interface RunAtStart {
  conversation: ConversationRow;
  choice: PlaceChoice;
  /** The new messages it answers (none for a run resumed). */
  messages: readonly MessageWork[];
  /** The cut-off run it resumes, if any. */
  resumedFrom: string | null;
  /** How a message's author is told it goes unanswered; a reply where it was posted unless given. */
  tellAuthor?: TellAuthor;
}

type SeatServices = Pick<BotServices, 'store' | 'client' | 'logger' | 'forgets'>;

/** One policy: the run as it may go on (its messages maybe fewer), or why it goes no further. */
type BeforeModelEntry = (services: SeatServices, run: RunAtStart) => Promise<RunAtStart | { stop: string }>;

/**
 * The content check of each new message (CONTENT_CHECK, where its place checks): a flagged one is
 * recorded and its author told (message-check.ts); with none left, nothing is answered.
 */
const questionsChecked: BeforeModelEntry = async (services, run) => {
  if (run.messages.length === 0) return run;
  const messages = await checkNewMessages(services, run.conversation, run.messages, run.choice.checks, run.tellAuthor);
  return messages.length > 0 ? { ...run, messages } : { stop: 'every message was flagged or could not be checked' };
};

/**
 * A /forget-me going on in the place deletes what the window would read: the run goes on once it
 * is done (the window is loaded and the run begins in the same tick: a later forget finds it).
 * A run resumed whose row a forget took meanwhile goes no further: what it reached may quote them.
 */
const clearOfForgets: BeforeModelEntry = async (services, run) => {
  await services.forgets.clearOf(run.conversation.guild_id);
  if (run.resumedFrom !== null && !services.store.runs.byId(run.resumedFrom))
    return { stop: 'it was forgotten meanwhile' };
  return run;
};

/** The entries, in order: the checks that tell people something first, the wait for forgets last. */
const entries: readonly BeforeModelEntry[] = [questionsChecked, clearOfForgets];

/** Passes the run through the seat: the run as it goes to the model, or why it does not. */
export async function beforeModel(services: SeatServices, run: RunAtStart): Promise<RunAtStart | { stop: string }> {
  let passed = run;
  for (const entry of entries) {
    const verdict = await entry(services, passed);
    if ('stop' in verdict) return verdict;
    passed = verdict;
  }
  return passed;
}
