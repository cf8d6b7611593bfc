/**
 * The public shape of the fake Discord: what a test may ask of it and what it records.
 */
import type {
  APIEmbed,
  APIGuildForumChannel,
  APIGuildVoiceChannel,
  APIThreadChannel,
  APITextChannel,
  GatewayMessageCreateDispatchData,
} from 'discord.js';
import type {
  CreateRoleInput,
  FakeInteraction,
  FakeRegisteredCommand,
  PressComponentInput,
  PressMessageButtonInput,
  RunCommandInput,
} from './interaction-types.ts';
import type { AbsentPlace, FakeAttachmentInput, FakeAuthor, WaitForOptions } from './shared-types.ts';

export type * from './interaction-types.ts';
export type * from './shared-types.ts';

/** Options of `startFakeDiscord`. */
export interface FakeDiscordOptions {
  /** The bot's application has no MessageContent intent: an IDENTIFY asking for it is closed with 4014. */
  disallowMessageContent?: boolean;
  /** Every REST answer waits this long (settable later as `fake.latencyMs`). */
  latencyMs?: number;
  /** The gateway's HELLO heartbeat_interval; Discord's is 41,250 ms. Lower it to see heartbeats in a test. */
  heartbeatIntervalMs?: number;
  /** How long the bot has to answer an interaction's callback; Discord's 3,000 ms unless given. */
  interactionDeadlineMs?: number;
  /** The bot token the fake accepts (a fixed one in Discord's shape unless given). */
  token?: string;
  /** GET /gateway/bot's recommended `shards` (1 unless given). */
  recommendedShards?: number;
  /** GET /gateway/bot's `session_start_limit.max_concurrency`: shards that may identify at once (1 unless given). */
  maxConcurrency?: number;
}

/** A message as Discord sends it in MESSAGE_CREATE (always in a guild here). */
/** A message; one in a DM has no `guild_id` (direct-messages.ts). */
export type FakeMessage = GatewayMessageCreateDispatchData & { guild_id?: string };

/** A text channel (type 0) or a thread (type 11 public, 12 private) as Discord sends it. */
export type FakeChannel = (APITextChannel | APIThreadChannel | APIGuildForumChannel | APIGuildVoiceChannel) & {
  guild_id: string;
};

/** A thread as Discord sends it. */
export type FakeThread = APIThreadChannel & { guild_id: string; parent_id: string };

/** What `fake.userSays` posts. */
export interface UserMessageInput {
  /** A text channel or a thread. */
  channelId: string;
  author: FakeAuthor;
  content: string;
  /** User ids pinged by the message (put `<@id>` in `content` too, as a real client would). */
  mentions?: string[];
  /** Role ids pinged by the message. */
  mentionRoles?: string[];
  mentionEveryone?: boolean;
  attachments?: FakeAttachmentInput[];
  /** Makes the message a reply to this message (type 19 with `message_reference`). */
  replyTo?: string;
  /** Link previews and the like, as Discord adds them to a user's message. */
  embeds?: APIEmbed[];
  /**
   * Makes the message a forward of this one (empty content, `message_reference` of type FORWARD and
   * the forwarded message in `message_snapshots`), as a client's Forward sends it.
   */
  forwardOf?: { channelId: string; messageId: string };
}

/** One REST request the fake received, before any fault hook or check ran. */
export interface RecordedRequest {
  method: string;
  /** The path below /api/v10, without the query: `/channels/100000000000000010/messages`. */
  path: string;
  query: Record<string, string>;
  /** The JSON body (for multipart, the `payload_json` part), or undefined when there was none. */
  body: unknown;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** When it arrived (performance.now()). */
  time: number;
  /** The status the fake answered with (set once answered). */
  status?: number;
}

/** One payload the client sent on the gateway. */
export interface GatewayPayloadRecord {
  op: number;
  d: unknown;
  time: number;
}

/** One dispatch the fake sent (or queued for a RESUME) on the gateway. */
export interface DispatchRecord {
  t: string;
  d: unknown;
  /** The shard ids of the sessions it was sent to (set by the gateway). */
  shards?: number[];
}

/** A fault for the next matching REST request(s). */
export interface FailRule {
  method: string;
  /** Matched against the path below /api/v10 (see `RecordedRequest.path`). */
  path: RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching requests fail (default 1). */
  times?: number;
  /** Matching requests answered normally before the first that fails (default 0: the next one). */
  skip?: number;
  /**
   * The request takes effect before it fails (the message is posted, the thread made), as when a
   * proxy in front of Discord times out after Discord did the work. Default false: no effect.
   */
  applied?: boolean;
}

/** Holds the answer of one matching REST request; the request itself takes effect at once. */
export interface HoldRule {
  method: string;
  path: RegExp;
  /** Matching requests answered normally before the one held (default 0: the next one). */
  skip?: number;
  /** How long its answer waits (a crash meanwhile loses it). */
  ms: number;
  /** Or: its answer waits until this settles (the test decides when). */
  until?: Promise<unknown>;
}

/** A 429 for the next matching REST request. */
export interface RateLimitRule {
  method: string;
  path: RegExp;
  /** Sent as `retry-after` (fractions are fine; discord.js multiplies by 1,000) and `retry_after`. */
  retryAfterSeconds: number;
  /** A global rate limit (`x-ratelimit-global: true`, scope "global") rather than a route's. */
  global?: boolean;
}

/**
 * A fake Discord (REST v10 and the JSON gateway) on 127.0.0.1 with a seeded guild.
 *
 * Teardown order matters: destroy the discord.js client (`await client.destroy()`) BEFORE
 * `fake.close()`, or the client keeps reconnecting to a closed port for ever. `close()` reports a
 * gateway connection still open at that point as a problem.
 */
export interface FakeDiscord {
  /** Give to discord.js as `rest: { api }` (no /v10: the client adds it). */
  readonly apiUrl: string;
  /** The origin attachments are served from (the fake's own, where Discord's are on its CDN): DISCORD_CDN_URL. */
  readonly cdnUrl: string;
  /** The bot token the fake accepts; any other gets 401 (REST) or 4004 (gateway). */
  readonly token: string;
  /** The gateway URL that GET /gateway/bot returns. */
  readonly gatewayUrl: string;
  readonly botUser: { id: string; username: string };
  readonly guildId: string;
  readonly channels: { general: string; random: string };
  readonly users: { ada: string; bob: string };
  /** `everyone` is the guild id; `bot` is the bot's managed role. */
  readonly roles: { everyone: string; bot: string; moderator: string };
  /** Every REST answer waits this long. */
  latencyMs: number;
  /** Every REST request takes effect at once, but its answer waits this long (a crash in between loses the answer). */
  holdResponsesMs: number;
  /** Every REST request, in order of arrival. */
  readonly requests: readonly RecordedRequest[];
  /** The attachment paths (`/attachments/…`) asked for so far, served or not. */
  readonly filesServed: readonly string[];
  /** Every payload the client sent on the gateway (HEARTBEAT, IDENTIFY, RESUME, …). */
  readonly gatewayPayloads: readonly GatewayPayloadRecord[];
  /** Every dispatch, in order, with the shards it went to. */
  readonly dispatches: readonly DispatchRecord[];
  /** Every gateway session identified so far, oldest first: its `[shard id, count]` and whether its socket is open. */
  gatewaySessions(): { shard: [number, number]; open: boolean }[];
  /**
   * Adds a guild the bot is in, with a #general channel (created before the bot connects, or the
   * bot learns of it at its next session). With `shard`, its id is chosen so that its events go to
   * that shard: `[shard id, shard count]`.
   */
  addGuild(name: string, options?: { shard?: [number, number] }): { guildId: string; generalId: string };
  /** Spec and policy violations seen so far; `close()` throws if any are left. */
  readonly problems: readonly string[];

  /** Posts a user's message and dispatches MESSAGE_CREATE. Resolves once the frame is written. */
  userSays(input: UserMessageInput): Promise<FakeMessage>;
  /** The person writes to the bot in a DM (their DM channel is opened on first use): no guild_id, no member. */
  userSaysInDm(input: { author: FakeAuthor; content: string }): Promise<FakeMessage>;
  /** The id of the person's DM channel with the bot (opened if it was not). */
  dmChannelOf(author: FakeAuthor): string;
  /** Adds a user who is no member of the seeded server: of none, or only of `memberOf` (from `addGuild`); returns their id. */
  addStranger(input: { id: string; username: string; memberOf?: string }): string;
  /**
   * A place the bot is not in, where people use the app installed to their own account: a channel of
   * a server that did not add the bot, or a group DM. Its REST routes answer 403 Missing Access; a
   * command run there comes as a user-installed interaction (user-installs.ts).
   */
  addAbsentPlace(kind: 'server' | 'group-dm'): AbsentPlace;
  /** A person's message in a place the bot is not in: no gateway event (the bot is not there). */
  userSaysInAbsentPlace(place: AbsentPlace, author: FakeAuthor, content: string): FakeMessage;
  /** Edits a message's content and dispatches MESSAGE_UPDATE. */
  userEdits(channelId: string, messageId: string, content: string): Promise<FakeMessage>;
  /**
   * Changes a message as Discord does by itself or when a user edits it (removing an attachment,
   * an embed added to a link) and dispatches MESSAGE_UPDATE.
   */
  messageChanges(
    channelId: string,
    messageId: string,
    change: { embeds?: unknown[]; removeAttachments?: readonly string[] },
  ): Promise<FakeMessage>;
  /** A moderator pins a message (listed by GET /channels/{id}/messages/pins, newest pin first). */
  pinMessage(channelId: string, messageId: string): void;
  /** Deletes a message and dispatches MESSAGE_DELETE. */
  userDeletes(channelId: string, messageId: string): Promise<void>;
  /** A moderator deletes several messages at once: MESSAGE_DELETE_BULK. */
  bulkDelete(channelId: string, messageIds: readonly string[]): Promise<void>;
  /** A text channel is deleted (its threads go with it): CHANNEL_DELETE. */
  deleteChannel(channelId: string): Promise<void>;
  /** A text channel made in the seeded guild (CHANNEL_CREATE, no message yet); resolves with its id. */
  createChannel(name: string): Promise<string>;
  /** A voice channel (type 2), whose text chat takes messages but no threads; resolves with its id. */
  createVoiceChannel(name: string): Promise<string>;
  /** A forum channel (type 15) made in the seeded guild with these tags available; resolves with its id. */
  createForum(name: string, tags: readonly string[]): Promise<string>;
  /**
   * A user starts a post in a forum: its thread (with the tags named) and its first message, which
   * has the thread's id (THREAD_CREATE, then MESSAGE_CREATE).
   */
  userStartsForumPost(
    input: Omit<UserMessageInput, 'channelId'> & { forumId: string; title: string; tags?: readonly string[] },
  ): Promise<{ thread: FakeThread; message: FakeMessage }>;
  /**
   * A user starts a public thread in a text channel (from `fromMessageId` if given; the thread
   * then has that message's id, as on Discord) and THREAD_CREATE is dispatched.
   */
  createThread(
    channelId: string,
    name: string,
    ownerId: string,
    options?: { fromMessageId?: string },
  ): Promise<FakeThread>;
  /** Deletes a thread and its messages and dispatches THREAD_DELETE. */
  deleteThread(threadId: string): Promise<void>;
  /**
   * A moderator (or Discord itself, archiving an idle thread) changes a thread: locks, archives or
   * renames it. Dispatches THREAD_UPDATE.
   */
  updateThread(threadId: string, changes: { locked?: boolean; archived?: boolean; name?: string }): Promise<FakeThread>;
  /**
   * A user runs a registered slash or message command: INTERACTION_CREATE (type 2) with the options
   * typed as the command registered them and the member's permissions in the channel. Throws when
   * Discord's client would not let the user send it (no such command, unknown or missing required
   * options, a value of the wrong type, default_member_permissions the member lacks). The bot then
   * has `interactionDeadlineMs` (3 s) to answer; an answer never given or given late is a problem.
   */
  userRunsCommand(input: RunCommandInput): Promise<FakeInteraction>;
  /**
   * A user presses a button of a message: INTERACTION_CREATE (type 3). Throws when the message has no
   * such button (any more) or it is disabled. The bot answers as to a command, or updates the message.
   */
  userPressesMessageButton(input: PressMessageButtonInput): Promise<FakeInteraction>;
  /** The user fills in and submits the form the bot answered `opened` with (values by text input id). */
  userSubmitsModal(opened: FakeInteraction, values: Record<string, string>): Promise<FakeInteraction>;
  /**
   * The user presses a button (or picks `values` in a select menu) on a message the bot answered an
   * interaction with: INTERACTION_CREATE of type 3 with that message. Throws for a component the
   * message lacks or that is disabled, or a value the menu does not offer.
   */
  userPressesComponent(input: PressComponentInput): Promise<FakeInteraction>;
  /** The commands registered (PUT) globally, or for a guild: as GET …/commands returns them. */
  registeredCommands(scope?: { guildId?: string }): FakeRegisteredCommand[];
  /** Gives a member a role and dispatches GUILD_MEMBER_UPDATE (sent with the GuildMembers intent only). */
  giveRole(userId: string, roleId: string): Promise<void>;
  /** Creates a role (placed above the others) and dispatches GUILD_ROLE_CREATE; resolves with its id. */
  createRole(input: CreateRoleInput): Promise<string>;
  /** Sets a role's permission bits and dispatches GUILD_ROLE_UPDATE. */
  setRolePermissions(roleId: string, bits: bigint): Promise<void>;
  /** A channel's permission overwrites (per role, type 0, or member, type 1): CHANNEL_UPDATE; discord.js reads them. */
  setChannelOverwrites(
    channelId: string,
    overwrites: { id: string; type: 0 | 1; allow: bigint; deny: bigint }[],
  ): Promise<void>;

  /** Every message in a channel or thread, oldest first, users' and the bot's. */
  messages(channelId: string): FakeMessage[];
  /** The bot's messages, oldest first: in one channel, or everywhere. */
  botMessages(channelId?: string): FakeMessage[];
  /** Every thread, oldest first. */
  threads(): FakeThread[];
  /** A channel or thread by id. */
  channel(channelId: string): FakeChannel | undefined;
  /**
   * Resolves with the first truthy value of `check`, evaluated now, on every change of the fake's
   * state and every 10 ms; a `check` that throws counts as "not yet". Rejects after `timeoutMs`
   * (default 5,000) with what was awaited, the last value or error, and the recent requests.
   */
  waitFor<T>(check: () => T | undefined | null | false, options?: WaitForOptions): Promise<T>;

  /** The next matching request(s) fail with `status` (the effect is not applied unless `applied`). */
  failNext(rule: FailRule): void;
  /** One matching request (after `skip` others) takes effect, but its answer waits `ms` (or for `until`). */
  holdNext(rule: HoldRule): void;
  /** The next matching request gets a 429 with Discord's headers and body. */
  rateLimitNext(rule: RateLimitRule): void;
  /** Forgets the nonces seen, as Discord does after a few minutes: a repeated nonce posts again. */
  forgetNonces(): void;
  /** Closes the gateway socket with a resumable code (4000 unless given); the client RESUMEs. */
  dropGateway(options?: { code?: number }): void;
  /**
   * Makes the bot's guild permissions exactly `bits` (the bot role gets `bits`, @everyone keeps
   * only its share of them) and dispatches GUILD_ROLE_UPDATE. The REST routes enforce them.
   */
  setBotPermissions(bits: bigint): void;
  /** Returns the problems recorded so far and forgets them (for a test that expects some). */
  takeProblems(): string[];
  /** Closes the servers, then throws if there were problems. Safe to call twice. */
  close(): Promise<void>;
}
