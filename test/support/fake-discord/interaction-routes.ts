/**
 * REST routes for answering interactions, which Discord serves without a bot token: the callback
 * (4 a message, 5 a deferral; once, within the deadline), then follow-ups and edits through the
 * interaction's webhook for 15 minutes. Non-ephemeral answers become messages in the channel.
 */
import { GatewayDispatchEvents, MessageFlags, MessageType } from 'discord.js';
import { alreadyAcknowledged, invalidFormBody, unknownInteraction, unknownMessage } from './http-errors.ts';
import { commandTypes } from './application-commands.ts';
import { updateComponentMessage } from './component-interactions.ts';
import type { InteractionRecord } from './interaction-record.ts';
import type { InteractionStore } from './interactions.ts';
import {
  baseMessage,
  botMessage,
  editBotMessage,
  serveAttachment,
  type CreateMessageBody,
  type UploadedFile,
} from './messages.ts';
import { restMessage } from './payloads.ts';
import type { FakeServices, Route } from './routes.ts';
import type { FakeInteractionReply } from './interaction-types.ts';
import type { FakeMessage } from './types.ts';
import { checkFollowUpLimit } from './user-installs.ts';

interface CallbackBody {
  type: number;
  data?: CreateMessageBody | null;
}

const callbackType = (body: unknown) => (body as CallbackBody | undefined)?.type;
const isEphemeral = (message: FakeMessage) => ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
const isLoading = (message: FakeMessage | undefined) =>
  message !== undefined && ((message.flags ?? 0) & MessageFlags.Loading) !== 0;

/** Discord's rules for suggestions: type 8, at most 25 choices, names and string values of 1 to 100 characters. */
function answerAutocomplete(record: InteractionRecord, callback: CallbackBody): { status: number } {
  const choices = (callback.data as { choices?: { name: string; value: string | number }[] } | undefined)?.choices;
  if (callback.type !== 8)
    throw invalidFormBody({ type: `an autocomplete interaction is answered with type 8, not ${callback.type}` });
  if (!Array.isArray(choices) || choices.length > 25)
    throw invalidFormBody({ 'data.choices': 'must be a list of at most 25 choices' });
  choices.forEach((choice, index) => {
    if (choice.name.length < 1 || choice.name.length > 100)
      throw invalidFormBody({ [`data.choices.${index}.name`]: 'must be 1 to 100 characters long' });
    if (typeof choice.value === 'string' && (choice.value.length < 1 || choice.value.length > 100))
      throw invalidFormBody({ [`data.choices.${index}.value`]: 'must be 1 to 100 characters long' });
  });
  record.acknowledged = true;
  record.choices = choices;
  return { status: 204 };
}

export function interactionRoutes(
  { world, gateway, baseUrl, problem }: FakeServices,
  store: InteractionStore,
): Route[] {
  /** The message an answer creates, marked as Discord marks interaction responses. */
  function responseMessage(
    record: InteractionRecord,
    body: CreateMessageBody,
    files: UploadedFile[],
    ephemeral: boolean,
  ): FakeMessage {
    const message = botMessage(world, baseUrl, record.channelId, body, files);
    return asInteractionResponse(record, message, ephemeral);
  }
  function asInteractionResponse(record: InteractionRecord, message: FakeMessage, ephemeral: boolean): FakeMessage {
    const user = world.users.get(record.userId)!;
    message.type =
      record.command.type === commandTypes.chatInput ? MessageType.ChatInputCommand : MessageType.ContextMenuCommand;
    message.application_id = record.applicationId;
    message.webhook_id = record.applicationId;
    message.flags = ((message.flags ?? 0) | (ephemeral ? MessageFlags.Ephemeral : 0)) as MessageFlags;
    Object.assign(message, {
      interaction_metadata: {
        id: record.id,
        type: 2,
        user,
        authorizing_integration_owners: record.payload.authorizing_integration_owners ?? { '0': world.guildId },
        name: record.fullName,
        command_type: record.command.type,
        ...(record.targetMessageId ? { target_message_id: record.targetMessageId } : {}),
        ...(record.original && record.original.id !== message.id
          ? { original_response_message_id: record.original.id }
          : {}),
      },
      interaction: { id: record.id, type: 2, name: record.fullName, user },
    });
    return message;
  }
  /** Ephemeral messages reach only the user: they are not stored in the channel nor dispatched. */
  async function publish(message: FakeMessage, event: 'create' | 'update'): Promise<void> {
    if (isEphemeral(message)) return;
    if (event === 'create') world.storeMessage(message);
    // No gateway tells the bot of a place it is not in (user-installs.ts).
    if (world.absentPlaces.has(message.channel_id)) return;
    await gateway.dispatch(
      event === 'create' ? GatewayDispatchEvents.MessageCreate : GatewayDispatchEvents.MessageUpdate,
      message,
    );
  }
  function reply(
    record: InteractionRecord,
    kind: FakeInteractionReply['kind'],
    message: FakeMessage,
    body: CreateMessageBody | undefined,
    files: UploadedFile[],
    type?: number,
  ): void {
    record.replies.push({
      kind,
      ...(type === undefined ? {} : { type }),
      content: message.content,
      ephemeral: isEphemeral(message),
      files: uploadedFiles(body, files),
      ...(body?.embeds ? { embeds: body.embeds } : {}),
      ...(message.components?.length ? { components: message.components } : {}),
      messageId: message.id,
    });
  }
  async function updateButtonMessage(
    record: InteractionRecord,
    type: 6 | 7,
    data: CreateMessageBody,
  ): Promise<{ status: number }> {
    record.acknowledged = true;
    const message = world.requireMessage(record.channelId, record.componentMessageId!);
    if (type === 7) {
      editBotMessage(world, message, data);
      await gateway.dispatch(GatewayDispatchEvents.MessageUpdate, message);
    }
    record.replies.push({
      kind: 'callback',
      type,
      content: message.content,
      ephemeral: false,
      files: [],
      messageId: message.id,
    });
    return { status: 204 };
  }
  function messageOf(record: InteractionRecord, messageId: string): FakeMessage {
    const message =
      messageId === '@original' ? record.original : record.followups.find((candidate) => candidate.id === messageId);
    if (message === undefined) throw unknownMessage();
    return message;
  }
  const webhook = (params: Record<string, string>) => store.forWebhook(params.applicationId!, params.token!);

  return [
    {
      method: 'POST',
      pattern: '/interactions/:interactionId/:token/callback',
      noAuth: true,
      schema: (_params, body) =>
        callbackType(body) === 4 || callbackType(body) === 5
          ? 'CreateMessageInteractionCallbackRequest'
          : callbackType(body) === 9
            ? 'ModalInteractionCallbackRequest'
            : undefined,
      botMessage: (body) => (callbackType(body) === 4 ? ((body as CallbackBody).data ?? {}) : undefined),
      async handle({ params, query, body, files }) {
        const record = store.forCallback(params.interactionId!, params.token!);
        if (record.acknowledged) throw alreadyAcknowledged();
        if (performance.now() > record.deadlineAt) {
          store.missDeadline(record);
          throw unknownInteraction();
        }
        const callback = body as CallbackBody;
        if (record.autocomplete) return answerAutocomplete(record, callback);
        // A form (type 9) answers a command, never a submitted form; the user sees it, no message is made.
        // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-interaction-callback-type
        if (callback.type === 9 && record.modalSubmit === undefined) {
          record.acknowledged = true;
          record.modal = structuredClone(callback.data) as unknown as InteractionRecord['modal'];
          return { status: 204 };
        }
        if (record.component !== undefined && (callback.type === 6 || callback.type === 7)) {
          const answered = updateComponentMessage({ world }, record, callback);
          if (answered) record.replies.push({ ...answered, ephemeral: isEphemeral(record.original!), files: [] });
          if (answered) await publish(record.original!, 'update');
          return { status: 204 };
        }
        const data = callback.data ?? {};
        // A button's press may update the message it is on (7) or acknowledge it alone (6).
        if (record.componentMessageId !== undefined && (callback.type === 6 || callback.type === 7))
          return updateButtonMessage(record, callback.type, data);
        const ephemeral = ((data.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
        if (callback.type === 4) {
          record.original = responseMessage(record, data, files, ephemeral);
        } else if (callback.type === 5) {
          // The user sees "<bot> is thinking…": a loading message, empty until the bot edits it.
          const loading = baseMessage(world, record.channelId, world.botUser, '');
          loading.flags = MessageFlags.Loading;
          record.original = asInteractionResponse(record, loading, ephemeral);
          record.deferred = true;
        } else {
          problem(
            `REST POST /interactions/${record.id}/…/callback: type ${callback.type} is not a response to a command the fake models (4 or 5)`,
          );
          throw invalidFormBody({
            type: `Interaction callback type ${callback.type} is not valid for an application command`,
          });
        }
        record.acknowledged = true;
        reply(record, 'callback', record.original, callback.type === 4 ? data : undefined, files, callback.type);
        await publish(record.original, 'create');
        if (query.with_response !== 'true') return { status: 204 };
        const interaction = {
          id: record.id,
          type: 2,
          response_message_id: record.original.id,
          response_message_loading: record.deferred,
          response_message_ephemeral: ephemeral,
        };
        return {
          body: {
            interaction,
            resource: {
              type: callback.type,
              ...(callback.type === 4 ? { message: restMessage(record.original) } : {}),
            },
          },
        };
      },
    },
    {
      method: 'POST',
      pattern: '/webhooks/:applicationId/:token',
      noAuth: true,
      schema: 'IncomingWebhookRequestPartial',
      botMessage: true,
      async handle({ params, query, body, files }) {
        const record = webhook(params);
        const request = (body ?? {}) as CreateMessageBody;
        let message: FakeMessage;
        if (record.deferred && isLoading(record.original)) {
          // Discord's backwards compatibility: a follow-up right after a deferral fills the loading
          // message instead (keeping the deferral's ephemerality). Deprecated; use editReply.
          problem(
            `REST POST /webhooks/…/${record.id}: a follow-up right after deferReply edits the loading message (deprecated by Discord, and its ephemeral flag is ignored); use editReply`,
          );
          message = record.original!;
          fillLoading(message, request, files);
          await publish(message, 'update');
        } else {
          checkFollowUpLimit(record);
          message = responseMessage(record, request, files, ((request.flags ?? 0) & MessageFlags.Ephemeral) !== 0);
          record.followups.push(message);
          await publish(message, 'create');
        }
        reply(record, 'followup', message, request, files);
        return query.wait === 'true' ? { body: restMessage(message) } : { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: '/webhooks/:applicationId/:token/messages/:messageId',
      noAuth: true,
      handle({ params }) {
        return { body: restMessage(messageOf(webhook(params), params.messageId!)) };
      },
    },
    {
      method: 'PATCH',
      pattern: '/webhooks/:applicationId/:token/messages/:messageId',
      noAuth: true,
      schema: 'IncomingWebhookUpdateRequestPartial',
      // Filling a deferred reply is when its message first shows: the bot-message rules apply; and to
      // every edit of its words, whose mentions Discord parses again "with default allowances" unless
      // the edit says otherwise (https://discord.com/developers/docs/resources/webhook#edit-webhook-message).
      botMessage: (body, params) =>
        (params.messageId === '@original' && store.isLoadingOriginal(params.token!)) ||
        typeof (body as { content?: unknown } | null)?.content === 'string'
          ? (body ?? {})
          : undefined,
      async handle({ params, body, files }) {
        const record = webhook(params);
        const message = messageOf(record, params.messageId!);
        const request = (body ?? {}) as CreateMessageBody;
        if (isLoading(message)) fillLoading(message, request, files);
        else editWithFiles(message, request, files);
        await publish(message, 'update');
        reply(record, 'edit', message, request, files);
        return { body: restMessage(message) };
      },
    },
    {
      method: 'DELETE',
      pattern: '/webhooks/:applicationId/:token/messages/:messageId',
      noAuth: true,
      async handle({ params }) {
        const record = webhook(params);
        const message = messageOf(record, params.messageId!);
        if (message === record.original) delete record.original;
        record.followups = record.followups.filter((candidate) => candidate !== message);
        if (!isEphemeral(message)) {
          world.removeMessage(message.channel_id, message.id);
          await gateway.dispatch(GatewayDispatchEvents.MessageDelete, {
            id: message.id,
            channel_id: message.channel_id,
            guild_id: message.guild_id,
          });
        }
        return { status: 204 };
      },
    },
  ];

  /** The first edit of a deferred reply: its content arrives and the loading state ends. */
  function fillLoading(message: FakeMessage, body: CreateMessageBody, files: UploadedFile[]): void {
    editWithFiles(message, body, files);
    message.flags = ((message.flags ?? 0) & ~MessageFlags.Loading) as MessageFlags;
    message.edited_timestamp = null;
  }
  /** An edit; `attachments` lists the old files to keep (all, when absent), new files are added. */
  function editWithFiles(message: FakeMessage, body: CreateMessageBody, files: UploadedFile[]): void {
    editBotMessage(world, message, body);
    const kept = body.attachments
      ? message.attachments.filter((old) => body.attachments!.some((entry) => String(entry.id) === old.id))
      : message.attachments;
    const added = uploadedFiles(body, files).map((file, index) =>
      serveAttachment(world, baseUrl, message.channel_id, file.name, files[index]!.contentType, files[index]!.body),
    );
    message.attachments = [...kept, ...added];
  }
}

/** The files of a request, named as its `attachments` entries name them (discord.js: id = index). */
function uploadedFiles(body: CreateMessageBody | undefined, files: UploadedFile[]): FakeInteractionReply['files'] {
  return files.map((file) => {
    const index = file.field.match(/^files\[(\d+)\]$/)?.[1];
    const described = body?.attachments?.find((attachment) => String(attachment.id) === index);
    return { name: described?.filename ?? file.filename, content: file.body.toString('utf8') };
  });
}
