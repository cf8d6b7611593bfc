/**
 * MCP elicitation: a server asks, during a tool call, for input from the person using the client
 * (`elicitation/create`). The bot declares the capability (form and URL modes) and hands each request
 * to the call's `askInput` port (the Discord layer asks the person whose message started the run);
 * where there is none (the terminal, `/tool`), or the call cannot be told apart, it declines.
 * https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation (form mode)
 * https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation (URL mode)
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../agent/logger.ts';
import type { InputField, InputRequest, ToolContext } from '../agent/tool.ts';
import { errorMessage, UserFacingError } from '../agent/errors.ts';
import { agentToolName } from './mcp-tools.ts';

/** The client capability declared at `initialize`: both modes (the SDK checks each request against it). */
export const elicitationCapability = { elicitation: { form: {}, url: {} } };

/** A call in flight on one connection: the tool and the context of the run that made it. */
export interface CallInFlight {
  tool: string;
  context: ToolContext;
}

type FormSchema = Extract<ElicitRequest['params'], { requestedSchema: unknown }>['requestedSchema'];
type PropertySchema = FormSchema['properties'][string];

/** A connection's calls in flight, and, where the transport tells (streamable HTTP), which one a request came from. */
export interface CallsInFlight {
  inFlight: ReadonlySet<CallInFlight>;
  of: (requestId: string | number) => CallInFlight | undefined;
}

/**
 * Answers the server's `elicitation/create` requests: each goes to the asker of the call it came
 * from. Over streamable HTTP the request's stream says which call that is (call-streams.ts);
 * otherwise it is the one call in flight. With none (a request outside a call) or several at once
 * and nothing saying which (stdio), nobody can be asked for sure: it is declined, and each thread
 * with a call in flight is told why.
 */
export function answerElicitations(client: Client, server: string, calls: CallsInFlight, logger: Logger): void {
  client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
    const params = request.params;
    const [only, ...others] = calls.inFlight;
    const call = calls.of(extra.requestId) ?? (others.length === 0 ? only : undefined);
    const declined = (why: string): ElicitResult => {
      logger.warn(
        { mcpServer: server, tool: call?.tool, mode: params.mode ?? 'form' },
        `MCP input request declined: ${why}`,
      );
      return { action: 'decline' };
    };
    if (!only) return declined('no call was in flight');
    if (!call) {
      await tellWhyNotAsked(server, params.message, calls.inFlight);
      return declined('several calls were in flight, and it is not known which one asked');
    }
    if (!call.context.askInput) return declined('nobody can be asked here (the terminal, or /tool)');
    return ask(call, server, params, extra.signal, logger);
  });
}

/** Each thread with a call in flight is told why a request for input was not put to anyone. */
async function tellWhyNotAsked(server: string, message: string, calls: ReadonlySet<CallInFlight>): Promise<void> {
  const told = new Set<string>();
  for (const each of calls)
    if (each.context.askInput && !told.has(each.context.conversationId)) {
      told.add(each.context.conversationId);
      await each.context
        .askInput({
          // Which of its tools asked is not known: the server is named.
          tool: `a tool of the ${server} server`,
          message,
          form: { kind: 'form', fields: [] },
          requester: each.context.requester,
          signal: each.context.signal,
          unanswerable: `${calls.size} calls to the ${server} server were running at once, and it does not say which one asked`,
        })
        .catch(() => undefined);
    }
}

/** Puts the request to the call's asker, and answers the server with what they did. */
async function ask(
  call: CallInFlight,
  server: string,
  params: ElicitRequest['params'],
  signal: AbortSignal,
  logger: Logger,
): Promise<ElicitResult> {
  const form = params.mode === 'url' ? { kind: 'url' as const, url: params.url } : formOf(params.requestedSchema);
  const input: InputRequest = {
    tool: agentToolName(server, call.tool),
    message: params.message,
    form,
    requester: call.context.requester,
    signal: AbortSignal.any([call.context.signal, signal]),
  };
  try {
    const outcome = await call.context.askInput!(input);
    return outcome.action === 'accept' && form.kind === 'form'
      ? { action: 'accept', content: outcome.content ?? {} }
      : { action: outcome.action };
  } catch (error) {
    logger.warn({ mcpServer: server, tool: call.tool, err: errorMessage(error) }, 'asking for input failed');
    return { action: 'cancel' };
  }
}

/** The fields of a requested form (the spec allows flat properties only: the SDK has checked it). */
export function formOf(schema: FormSchema): { kind: 'form'; fields: InputField[] } {
  const required = new Set(schema.required ?? []);
  const fields: InputField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = fieldOf(name, property, required.has(name));
    fields.push(field);
  }
  return { kind: 'form', fields };
}

function fieldOf(name: string, property: PropertySchema, required: boolean): InputField {
  const base = {
    name,
    label: property.title ?? name,
    ...(property.description ? { description: property.description } : {}),
    required,
    ...(property.default !== undefined ? { default: property.default } : {}),
  };
  if (property.type === 'array') {
    const { items } = property;
    const choices = 'enum' in items ? { options: items.enum } : titled(items.anyOf);
    return { ...base, type: 'list', ...choices, minItems: property.minItems, maxItems: property.maxItems };
  }
  if (property.type === 'boolean') return { ...base, type: 'boolean' };
  if (property.type === 'number' || property.type === 'integer')
    return { ...base, type: property.type, minimum: property.minimum, maximum: property.maximum };
  if ('oneOf' in property) return { ...base, type: 'enum', ...titled(property.oneOf) };
  if ('enum' in property)
    return {
      ...base,
      type: 'enum',
      options: property.enum,
      ...('enumNames' in property && property.enumNames ? { optionTitles: property.enumNames } : {}),
    };
  const text = property as { minLength?: number; maxLength?: number; format?: string };
  const format = text.format ? ` (${text.format})` : '';
  return {
    ...base,
    ...(format ? { description: `${base.description ?? ''}${format}`.trim() } : {}),
    type: 'string',
    minLength: text.minLength,
    maxLength: text.maxLength,
  };
}

function titled(options: readonly { const: string; title: string }[]): { options: string[]; optionTitles: string[] } {
  return { options: options.map((option) => option.const), optionTitles: options.map((option) => option.title) };
}

/**
 * URL elicitation's error path: a tool call answered with -32042 (URLElicitationRequiredError) needs
 * the person to open each link first; the client shows them and may send the call again
 * (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation, "URL Elicitation
 * Required Error"). Each link goes to the asker as the request path's does (a button, the link told
 * to them alone); resolves once they chose to open every one, or throws saying plainly why not.
 */
export async function openLinksFirst(
  server: string,
  tool: string,
  required: UrlElicitationRequiredError,
  context: ToolContext,
): Promise<void> {
  const name = agentToolName(server, tool);
  const links = required.elicitations.filter((each) => each.mode === 'url');
  if (!context.askInput)
    throw new UserFacingError(
      'mcp_link_required',
      `${name} needs the person to open a link first, and nobody can be shown one here: ${links.map((link) => link.url).join(' ')}`,
    );
  for (const link of links) {
    const outcome = await context.askInput({
      tool: name,
      message: link.message,
      form: { kind: 'url', url: link.url },
      requester: context.requester,
      signal: context.signal,
    });
    if (outcome.action !== 'accept')
      throw new UserFacingError(
        'mcp_link_declined',
        `${name} needs ${context.requester.displayName} to open a link first ("${link.message}"), and they did not (${outcome.action === 'decline' ? 'declined, or no answer in time' : 'withdrawn'}): tell them, and call it again if they ask`,
      );
  }
}
