import type { MessageQueries, NewMessage } from '../../db/messages.ts';
import type {
  AgentEventSink,
  FinalAnswerEvent,
  ModelCallEvent,
  ToolCallEvent,
  ToolErrorEvent,
  ToolResultEvent,
} from '../agent/events.ts';
import type { ToolCall } from '../agent/messages.ts';
import { finalAnswerToolName } from '../agent/final-answer.ts';
import type { TokenCounter } from './token-counter.ts';

/** What a run's memory writer keeps: the fields every row shares, and the group each tool call's result joins. */
interface RunMemory {
  messages: MessageQueries;
  counter: TokenCounter;
  base: Pick<
    NewMessage,
    'conversationId' | 'answersId' | 'authorId' | 'authorName' | 'toolCallId' | 'discordMessageId' | 'toolCalls'
  >;
  groupOfCall: Map<string, number>;
}

/**
 * Writes what the conversation remembers of a run as it happens: each assistant message with tool
 * calls (without `final_answer`), each of their results, and the answer as assistant text. A run
 * cut off by a crash leaves its finished calls; the window answers the rest as "cancelled".
 */
export function memorySink(
  messages: MessageQueries,
  counter: TokenCounter,
  conversationId: number,
  answersId: number | null,
): AgentEventSink {
  const memory: RunMemory = {
    messages,
    counter,
    base: {
      conversationId,
      answersId,
      authorId: null,
      authorName: null,
      toolCallId: null,
      discordMessageId: null,
      toolCalls: null,
    },
    groupOfCall: new Map(),
  };
  return (event) => {
    switch (event.type) {
      case 'model-call':
        return rememberToolTurn(memory, event);
      case 'tool-call':
        return rememberUnannouncedCall(memory, event);
      case 'tool-result':
      case 'tool-error':
        return rememberToolOutcome(memory, event);
      case 'final-answer':
        return rememberAnswer(memory, event);
      default:
        return;
    }
  };
}

/** A model turn with tool calls (other than `final_answer`): the head of their group. */
function rememberToolTurn(memory: RunMemory, event: ModelCallEvent): void {
  const calls = (event.message.tool_calls ?? []).filter((call) => call.function.name !== finalAnswerToolName);
  if (calls.length === 0) return;
  const content = event.message.content ?? '';
  const toolCalls = JSON.stringify(calls.map(rememberedCall));
  const head = memory.messages.insertGroupHead({
    ...memory.base,
    runId: event.runId,
    role: 'assistant',
    content,
    toolCalls,
    tokenCount: memory.counter.count(content + toolCalls),
  });
  for (const call of calls) memory.groupOfCall.set(call.id, head);
}

/** A call no model turn announced (a person's `/tool`): remembered as a turn of one call. */
function rememberUnannouncedCall(memory: RunMemory, event: ToolCallEvent): void {
  if (memory.groupOfCall.has(event.callId)) return;
  const toolCalls = JSON.stringify([
    rememberedCall({
      id: event.callId,
      type: 'function',
      function: { name: event.name, arguments: event.arguments },
    }),
  ]);
  const head = memory.messages.insertGroupHead({
    ...memory.base,
    runId: event.runId,
    role: 'assistant',
    content: '',
    toolCalls,
    tokenCount: memory.counter.count(toolCalls),
  });
  memory.groupOfCall.set(event.callId, head);
}

/** A call's result or error, in its turn's group (a `final_answer` call's stays out). */
function rememberToolOutcome(memory: RunMemory, event: ToolResultEvent | ToolErrorEvent): void {
  const groupId = memory.groupOfCall.get(event.callId);
  if (groupId === undefined || event.name === finalAnswerToolName) return;
  const content = event.type === 'tool-result' ? event.result : event.error;
  memory.messages.insert({
    ...memory.base,
    runId: event.runId,
    role: 'tool',
    content,
    toolCallId: event.callId,
    groupId,
    tokenCount: memory.counter.count(content),
  });
}

/** The answer, as assistant text. */
function rememberAnswer(memory: RunMemory, event: FinalAnswerEvent): void {
  const content = event.answer.answer;
  memory.messages.insert({
    ...memory.base,
    runId: event.runId,
    role: 'assistant',
    content,
    groupId: null,
    tokenCount: memory.counter.count(content),
  });
}

/** Arguments longer than this are not kept in memory (the step log keeps them whole). */
const maxRememberedArguments = 2000;

/** A call as memory keeps it: huge arguments give way to a short, valid JSON note. */
function rememberedCall(call: ToolCall): ToolCall {
  if (call.function.arguments.length <= maxRememberedArguments) return call;
  const note = JSON.stringify({
    note: `arguments of ${call.function.arguments.length} characters, not kept in memory`,
  });
  return { ...call, function: { ...call.function, arguments: note } };
}
