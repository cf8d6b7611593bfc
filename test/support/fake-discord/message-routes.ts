/**
 * REST routes for messages: create (the bot's messages, with replies, nonces, files and mentions),
 * list and fetch, edit, delete, and the typing indicator. Permissions are enforced as Discord does.
 */
import { GatewayDispatchEvents, PermissionFlagsBits as Bits } from 'discord.js';
import { invalidFormBody, missingPermissions, notAuthor, threadLocked } from './http-errors.ts';
import { botMessage, editBotMessage, type CreateMessageBody, type EditMessageBody } from './messages.ts';
import { restMessage } from './payloads.ts';
import type { FakeServices, Route } from './routes.ts';
import { updateThread } from './threads.ts';
import type { FakeChannel, FakeMessage } from './types.ts';
import { isThread } from './world.ts';

/** How long Discord remembers a nonce for `enforce_nonce` ("the past few minutes"). */
const nonceWindowMs = 5 * 60_000;

export function messageRoutes({ world, gateway, baseUrl }: FakeServices): Route[] {
  /**
   * Sending needs SendMessages (SendMessagesInThreads in a thread); in a locked thread, archived or
   * not, only those who may manage threads post; an archived thread reopens.
   */
  async function requireSendable(channel: FakeChannel): Promise<void> {
    world.requireBotPermission(isThread(channel) ? Bits.SendMessagesInThreads : Bits.SendMessages);
    if (!isThread(channel)) return;
    if (channel.thread_metadata?.locked && !world.botMay(Bits.ManageThreads)) throw threadLocked();
    if (!channel.thread_metadata?.archived) return;
    await updateThread(gateway, channel, { archived: false });
  }

  return [
    {
      method: 'POST',
      pattern: '/channels/:channelId/messages',
      schema: 'MessageCreateRequest',
      botMessage: true,
      async handle({ params, body, files }) {
        const channel = world.requireChannel(params.channelId!);
        const request = body as CreateMessageBody;
        if (request.message_reference) world.requireBotPermission(Bits.ReadMessageHistory);
        if (files.length > 0) world.requireBotPermission(Bits.AttachFiles);
        const nonce = request.nonce === undefined || request.nonce === null ? undefined : String(request.nonce);
        if (nonce !== undefined && request.enforce_nonce) {
          const seen = world.nonces.get(nonce);
          if (seen && Date.now() - seen.at < nonceWindowMs) return { body: restMessage(seen.message) };
        }
        await requireSendable(channel);
        const message = botMessage(world, baseUrl, channel.id, request, files);
        world.storeMessage(message);
        if (nonce !== undefined) world.nonces.set(nonce, { message, at: Date.now() });
        await gateway.dispatch(GatewayDispatchEvents.MessageCreate, message);
        return { body: restMessage(message) };
      },
    },
    {
      method: 'GET',
      pattern: '/channels/:channelId/messages',
      handle({ params, query }) {
        const channel = world.requireChannel(params.channelId!);
        world.requireBotPermission(0n);
        // Without ReadMessageHistory Discord answers with an empty list, not an error.
        if (!world.botMay(Bits.ReadMessageHistory)) return { body: [] };
        return { body: pageOfMessages(world.messagesByChannel.get(channel.id) ?? [], query).map(restMessage) };
      },
    },
    {
      // Before /messages/:messageId, which would take "pins" for a message id. The paged list of
      // 2025: https://discord.com/developers/docs/resources/message#get-channel-pins (discord.js 14's fetchPins).
      method: 'GET',
      pattern: '/channels/:channelId/messages/pins',
      handle({ params, query }) {
        const channel = world.requireChannel(params.channelId!);
        world.requireBotPermission(Bits.ReadMessageHistory);
        const limit = Math.min(Number(query.limit ?? 50), 50);
        const before = query.before ? Date.parse(query.before) : Infinity;
        const pins = (world.pins.get(channel.id) ?? []).filter((pin) => Date.parse(pin.pinnedAt) < before);
        const messages = world.messagesByChannel.get(channel.id) ?? [];
        const items = pins.slice(0, limit).flatMap((pin) => {
          const message = messages.find((candidate) => candidate.id === pin.messageId);
          return message ? [{ pinned_at: pin.pinnedAt, message: restMessage(message) }] : [];
        });
        return { body: { items, has_more: pins.length > limit } };
      },
    },
    {
      method: 'GET',
      pattern: '/channels/:channelId/messages/:messageId',
      handle({ params }) {
        world.requireChannel(params.channelId!);
        world.requireBotPermission(Bits.ReadMessageHistory);
        return { body: restMessage(world.requireMessage(params.channelId!, params.messageId!)) };
      },
    },
    {
      method: 'PATCH',
      pattern: '/channels/:channelId/messages/:messageId',
      schema: 'MessageEditRequestPartial',
      async handle({ params, body }) {
        world.requireChannel(params.channelId!);
        world.requireBotPermission(0n);
        const message = world.requireMessage(params.channelId!, params.messageId!);
        if (message.author.id !== world.botUser.id) throw notAuthor();
        editBotMessage(world, message, body as EditMessageBody);
        await gateway.dispatch(GatewayDispatchEvents.MessageUpdate, message);
        return { body: restMessage(message) };
      },
    },
    {
      method: 'DELETE',
      pattern: '/channels/:channelId/messages/:messageId',
      async handle({ params }) {
        world.requireChannel(params.channelId!);
        world.requireBotPermission(0n);
        const message = world.requireMessage(params.channelId!, params.messageId!);
        if (message.author.id !== world.botUser.id && !world.botMay(Bits.ManageMessages)) throw missingPermissions();
        world.removeMessage(params.channelId!, message.id);
        await gateway.dispatch(GatewayDispatchEvents.MessageDelete, {
          id: message.id,
          channel_id: message.channel_id,
          guild_id: message.guild_id,
        });
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/typing',
      handle({ params }) {
        const channel = world.requireChannel(params.channelId!);
        world.requireBotPermission(isThread(channel) ? Bits.SendMessagesInThreads : Bits.SendMessages);
        return { status: 204 };
      },
    },
  ];
}

/** GET …/messages paging as Discord does it: newest first, `limit` 1–100 (default 50). */
function pageOfMessages(all: FakeMessage[], query: Record<string, string>): FakeMessage[] {
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidFormBody({ limit: 'Must be between 1 and 100.' });
  const id = (message: FakeMessage) => BigInt(message.id);
  const newestFirst = [...all].sort((a, b) => (id(b) > id(a) ? 1 : -1));
  if (query.before !== undefined)
    return newestFirst.filter((message) => id(message) < BigInt(query.before!)).slice(0, limit);
  if (query.after !== undefined) {
    // The `limit` messages right after `after` (the oldest of those newer), still newest first.
    return newestFirst.filter((message) => id(message) > BigInt(query.after!)).slice(-limit);
  }
  if (query.around !== undefined) {
    const around = BigInt(query.around);
    const newer = newestFirst.filter((message) => id(message) > around).slice(-Math.floor(limit / 2));
    const older = newestFirst.filter((message) => id(message) <= around).slice(0, limit - newer.length);
    return [...newer, ...older];
  }
  return newestFirst.slice(0, limit);
}
