/**
 * The record the fake keeps of one interaction it dispatched, and how every new one starts: a
 * fresh id and token, not yet answered, with Discord's clock (the callback deadline, the token's
 * 15 minutes) counted from its dispatch. A command, a submitted form, a press on a button or menu:
 * each says what it is, and this makes the rest alike.
 */
import { randomBytes } from 'node:crypto';
import type { FakeInteractionReply, FakeModal, FakeRegisteredCommand } from './interaction-types.ts';
import type { FakeMessage } from './types.ts';
import type { World } from './world.ts';

/** How long an interaction token serves follow-ups and edits. */
const tokenLifetimeMs = 15 * 60_000;

/** One dispatched interaction and the bot's answers to it. */
export interface InteractionRecord {
  id: string;
  token: string;
  applicationId: string;
  channelId: string;
  command: FakeRegisteredCommand;
  /** The name with its subcommand group and subcommand ("tool run"), as messages show it. */
  fullName: string;
  userId: string;
  targetMessageId?: string;
  payload: Record<string, unknown>;
  deadlineAt: number;
  expiresAt: number;
  acknowledged: boolean;
  deferred: boolean;
  /** The original response (ephemeral ones are not among the channel's messages). */
  original?: FakeMessage;
  followups: FakeMessage[];
  replies: FakeInteractionReply[];
  missedDeadline: boolean;
  timer?: NodeJS.Timeout;
  /** An autocomplete interaction (type 4): answered with suggestions, not a message. */
  autocomplete: boolean;
  /** The form (modal) the bot answered with (callback type 9). */
  modal?: FakeModal;
  /** A button press (interaction type 3): the message its button is on. */
  componentMessageId?: string;
  /** A submitted form (interaction type 5): the custom id of the form it answers. */
  modalSubmit?: string;
  /** A press on a button or menu (interaction type 3): its custom id (component-interactions.ts). */
  component?: string;
  choices?: { name: string; value: string | number }[];
}

/** The fields every new interaction starts with, whatever it is (the store sets the timer). */
type StartState =
  | 'id'
  | 'token'
  | 'deadlineAt'
  | 'expiresAt'
  | 'acknowledged'
  | 'deferred'
  | 'followups'
  | 'replies'
  | 'missedDeadline'
  | 'timer';

/** What an interaction is: the rest of its record starts alike. */
type InteractionFields = Omit<InteractionRecord, StartState>;

/**
 * A new interaction's record. `describe` gets its id and token (its payload carries both) and says
 * what it is; it may spread the record of the interaction it follows (a form's, a message's), whose
 * answers and clock are not carried over.
 */
export function newInteractionRecord(
  world: Pick<World, 'nextId'>,
  deadlineMs: number,
  describe: (id: string, token: string) => InteractionFields,
): InteractionRecord {
  const id = world.nextId();
  const token = Buffer.from(`interaction:${id}:${randomBytes(48).toString('base64url')}`).toString('base64url');
  const fields = describe(id, token);
  const now = performance.now();
  return {
    ...fields,
    id,
    token,
    deadlineAt: now + deadlineMs,
    expiresAt: now + tokenLifetimeMs,
    acknowledged: false,
    deferred: false,
    followups: [],
    replies: [],
    missedDeadline: false,
  };
}
