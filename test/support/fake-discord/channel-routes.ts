/**
 * REST routes for channels and threads (fetch, modify, start threads, join), and the ones a client
 * calls about itself (gateway information, its user, its application).
 */
import { ChannelType, GatewayDispatchEvents, PermissionFlagsBits as Bits } from 'discord.js';
import { missingPermissions } from './http-errors.ts';
import { applicationPayload } from './payloads.ts';
import type { FakeServices, Route } from './routes.ts';
import { createThread, updateThread, type ThreadChanges } from './threads.ts';
import { isThread } from './world.ts';

interface CreateThreadBody {
  name: string;
  auto_archive_duration?: number | null;
  rate_limit_per_user?: number | null;
  type?: number | null;
}

export function channelRoutes({
  world,
  gateway,
  gatewayUrl,
  messageContentAllowed,
  recommendedShards,
  maxConcurrency,
}: FakeServices): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/channels/:channelId',
      handle({ params }) {
        const channel = world.requireChannel(params.channelId!);
        world.requireBotPermission(0n);
        return { body: channel };
      },
    },
    {
      method: 'PATCH',
      pattern: '/channels/:channelId',
      schema: (params) => {
        const channel = world.channels.get(params.channelId!);
        return channel !== undefined && isThread(channel)
          ? 'UpdateThreadRequestPartial'
          : 'UpdateGuildChannelRequestPartial';
      },
      async handle({ params, body }) {
        const channel = world.requireChannel(params.channelId!);
        world.requireBotPermission(0n);
        const changes = body as ThreadChanges & { topic?: string | null };
        if (!isThread(channel)) {
          world.requireBotPermission(Bits.ManageChannels);
          if (typeof changes.name === 'string') channel.name = changes.name;
          if (changes.topic !== undefined) (channel as { topic?: string | null }).topic = changes.topic;
          await gateway.dispatch(GatewayDispatchEvents.ChannelUpdate, channel);
          return { body: channel };
        }
        const owner = channel.owner_id === world.botUser.id;
        if (
          changes.locked !== undefined &&
          changes.locked !== null &&
          changes.locked !== channel.thread_metadata?.locked
        ) {
          world.requireBotPermission(Bits.ManageThreads);
        }
        if (
          !owner &&
          !world.botMay(Bits.ManageThreads) &&
          (changes.name != null ||
            changes.archived != null ||
            changes.auto_archive_duration != null ||
            changes.applied_tags != null)
        ) {
          throw missingPermissions();
        }
        return { body: await updateThread(gateway, channel, changes) };
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/messages/:messageId/threads',
      schema: 'CreateTextThreadWithMessageRequest',
      async handle({ params, body }) {
        world.requireChannel(params.channelId!);
        world.requireBotPermission(Bits.CreatePublicThreads);
        const request = body as CreateThreadBody;
        const thread = await createThread(world, gateway, {
          parentId: params.channelId!,
          name: request.name,
          ownerId: world.botUser.id,
          type: ChannelType.PublicThread,
          fromMessageId: params.messageId!,
          autoArchiveDuration: request.auto_archive_duration ?? null,
          rateLimitPerUser: request.rate_limit_per_user ?? null,
        });
        return { status: 201, body: thread };
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/threads',
      // The spec allows a forum thread here too; the fake has text channels only.
      schema: 'CreateTextThreadWithoutMessageRequest',
      async handle({ params, body }) {
        world.requireChannel(params.channelId!);
        const request = body as CreateThreadBody;
        // Discord's default is a private thread, for historical reasons.
        const type = request.type === ChannelType.PublicThread ? ChannelType.PublicThread : ChannelType.PrivateThread;
        world.requireBotPermission(
          type === ChannelType.PublicThread ? Bits.CreatePublicThreads : Bits.CreatePrivateThreads,
        );
        const thread = await createThread(world, gateway, {
          parentId: params.channelId!,
          name: request.name,
          ownerId: world.botUser.id,
          type,
          autoArchiveDuration: request.auto_archive_duration ?? null,
          rateLimitPerUser: request.rate_limit_per_user ?? null,
        });
        return { status: 201, body: thread };
      },
    },
    {
      method: 'PUT',
      pattern: '/channels/:channelId/thread-members/@me',
      handle({ params }) {
        world.requireThread(params.channelId!);
        world.requireBotPermission(0n);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: '/gateway/bot',
      handle: () => ({
        body: {
          url: gatewayUrl,
          shards: recommendedShards,
          session_start_limit: {
            total: 1000,
            remaining: 999,
            reset_after: 14_400_000,
            max_concurrency: maxConcurrency,
          },
        },
      }),
    },
    { method: 'GET', pattern: '/gateway', noAuth: true, handle: () => ({ body: { url: gatewayUrl } }) },
    { method: 'GET', pattern: '/users/@me', handle: () => ({ body: world.botUser }) },
    // The bot's servers, as partial guilds, in one page (Discord's pages hold up to 200).
    {
      method: 'GET',
      pattern: '/users/@me/guilds',
      handle: ({ query }) => ({
        body: [...world.guilds.values()].slice(0, Number(query.limit ?? 200)).map((guild) => ({
          id: guild.id,
          name: guild.name,
          icon: null,
          owner: false,
          permissions: '0',
          features: [],
        })),
      }),
    },
    {
      method: 'GET',
      pattern: '/applications/@me',
      handle: () => ({ body: applicationPayload(world, messageContentAllowed) }),
    },
    {
      method: 'GET',
      pattern: '/oauth2/applications/@me',
      handle: () => ({ body: applicationPayload(world, messageContentAllowed) }),
    },
  ];
}
