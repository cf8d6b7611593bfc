/**
 * The public shape of the fake's application commands and interactions (re-exported by types.ts).
 */
import type { FakeAttachmentInput, FakeAuthor, WaitForOptions } from './shared-types.ts';

/**
 * A registered application command as Discord returns it from GET/PUT …/commands: the bot's
 * definition with Discord's defaults filled in and its empty or false fields left out.
 */
export interface FakeRegisteredCommand {
  id: string;
  application_id: string;
  /** A snowflake that changes when a bulk overwrite changes the command; the same otherwise. */
  version: string;
  /** A permission bit set as a string of digits, or null (everyone may use the command). */
  default_member_permissions: string | null;
  /** 1 chat input (slash), 2 user, 3 message. */
  type: number;
  name: string;
  /** "" for context-menu commands. */
  description: string;
  name_localizations?: Record<string, string>;
  description_localizations?: Record<string, string>;
  /** Guild commands only. */
  guild_id?: string;
  /** Global commands only (true unless the bot said otherwise). */
  dm_permission?: boolean;
  /** Global commands only: what the bot sent, or null. */
  contexts?: number[] | null;
  /** Global commands only: what the bot sent, or [0] (guild install). */
  integration_types?: number[];
  /** Left out when the command has none. */
  options?: FakeRegisteredOption[];
  nsfw: boolean;
}

/** A command option as Discord returns it: `required` and `autocomplete` appear only when true. */
export interface FakeRegisteredOption {
  /** 1 subcommand, 2 group, 3 string, 4 integer, 5 boolean, 6 user, 7 channel, 8 role, 9 mentionable, 10 number, 11 attachment. */
  type: number;
  name: string;
  description: string;
  name_localizations?: Record<string, string>;
  description_localizations?: Record<string, string>;
  required?: true;
  autocomplete?: true;
  choices?: { name: string; value: string | number; name_localizations?: Record<string, string> }[];
  options?: FakeRegisteredOption[];
  channel_types?: number[];
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
}

/**
 * An option value as the user types it. Strings, numbers and booleans for those option types; an
 * id for user, channel, role and mentionable options (the fake adds Discord's `resolved` data); a
 * file for an attachment option (the fake serves it and sends its id, with the attachment resolved).
 */
export type FakeOptionValue = string | number | boolean | FakeAttachmentInput;

/** What `fake.userRunsCommand` runs. */
export interface RunCommandInput {
  /** The registered command's name (the guild's command wins over a global one of that name). */
  name: string;
  author: FakeAuthor;
  /** A text channel or a thread. */
  channelId: string;
  /** 'chat-input' (a slash command, the default) or 'message' (a message context-menu command). */
  type?: 'chat-input' | 'message';
  /** For a slash command with subcommands. */
  subcommand?: string;
  /** For a subcommand inside a group. */
  subcommandGroup?: string;
  /** Option values by name; each gets the type the registered option has. */
  options?: Record<string, FakeOptionValue>;
  /** For a message command: the message it was run on (in `channelId`). */
  targetMessageId?: string;
  /**
   * The person installed the app to their own account too: in the bot's server, a command
   * installable to users comes authorised by both installs ("0" and "1").
   */
  ownInstall?: boolean;
  /**
   * Makes it an autocomplete interaction (type 4) for this option, which must be registered with
   * `autocomplete`: `options` hold what has been typed so far, and required ones may be missing.
   */
  focused?: string;
}

/** One answer of the bot to an interaction, in order of arrival. */
export interface FakeInteractionReply {
  /** 'callback' POST …/callback; 'followup' POST /webhooks/…; 'edit' PATCH /webhooks/…/messages/…. */
  kind: 'callback' | 'followup' | 'edit';
  /** The callback type (4 message, 5 deferred), for kind 'callback'. */
  type?: number;
  /** The message's content after this answer ('' for a deferral). */
  content: string;
  /** Flags & 64: only the user sees it, and it is not among the channel's messages. */
  ephemeral: boolean;
  /** The files uploaded with this answer (multipart `files[n]`), their text read as UTF-8. */
  files: { name: string; content: string }[];
  embeds?: unknown[];
  /** The buttons and menus the message carries after this answer (when it carries any). */
  components?: unknown[];
  /** The message this answer created or edited. */
  messageId?: string;
}

/** A user's interaction that the fake dispatched, and what the bot answered. */
export interface FakeInteraction {
  readonly id: string;
  readonly token: string;
  /** The INTERACTION_CREATE payload as sent. */
  readonly payload: unknown;
  /** Whether the bot answered the callback in time (a reply or a deferral). */
  readonly acknowledged: boolean;
  /** Whether the bot answered with a deferral (type 5). */
  readonly deferred: boolean;
  /** Every answer so far, ephemeral ones included. */
  replies(): FakeInteractionReply[];
  /**
   * Resolves with the first answer that carries a message (a callback of type 4, an edit of the
   * original, a follow-up; not the deferral itself) and matches `predicate`; see `fake.waitFor`.
   */
  waitForReply(
    predicate?: (reply: FakeInteractionReply) => boolean,
    options?: WaitForOptions,
  ): Promise<FakeInteractionReply>;
  /** Resolves with the form (modal) the bot answered with (callback type 9). */
  waitForModal(options?: WaitForOptions): Promise<FakeModal>;
  /** For an autocomplete interaction: the suggestions the bot answered with (callback type 8). */
  waitForChoices(options?: WaitForOptions): Promise<{ name: string; value: string | number }[]>;
}

/** What `fake.createRole` makes. */
export interface CreateRoleInput {
  name: string;
  /** The role's permission bits (none unless given). */
  permissions?: bigint;
}

/** A form (modal) as the bot sends it: rows of text inputs. */
export interface FakeModal {
  custom_id: string;
  title: string;
  components: {
    type: number;
    components: {
      type: number;
      custom_id: string;
      label?: string;
      style: number;
      value?: string;
      placeholder?: string;
      required?: boolean;
      max_length?: number;
    }[];
  }[];
}

/** What `fake.userPressesComponent` presses. */
export interface PressComponentInput {
  /** The interaction whose answer carries the component. */
  on: FakeInteraction;
  /** The message of that interaction (its latest answer's message when absent). */
  messageId?: string;
  /** The button's or menu's custom id. */
  customId: string;
  author: FakeAuthor;
  /** For a select menu: the chosen options' values. */
  values?: string[];
}

/** What `fake.userPressesMessageButton` presses. */
export interface PressMessageButtonInput {
  channelId: string;
  messageId: string;
  /** The custom id of one of the message's buttons. */
  customId: string;
  author: FakeAuthor;
  /**
   * A client sending a custom id the message lacks (Discord refuses it; a modified client may try):
   * the fake sends it all the same, for a test that the bot does not rely on Discord's check.
   */
  forged?: boolean;
}
