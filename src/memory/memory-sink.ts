import type { MessageQueries } from '../../db/messages.ts';
import type { AgentEventSink } from '../agent/events.ts';
import type { ToolCall } from '../agent/messages.ts';
import { finalAnswerToolName } from '../agent/final-answer.ts';
import type { TokenCounter } from './token-counter.ts';

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
  const groupOfCall = new Map<string, number>();
  const base = {
    conversationId,
    answersId,
    authorId: null,
    authorName: null,
    toolCallId: null,
    discordMessageId: null,
    toolCalls: null,
  };
  return (event) => {
    switch (event.type) {
      case 'model-call': {
        const calls = (event.message.tool_calls ?? []).filter((call) => call.function.name !== finalAnswerToolName);
        if (calls.length === 0) return;
        const content = event.message.content ?? '';
        const toolCalls = JSON.stringify(calls.map(rememberedCall));
        const head = messages.insertGroupHead({
          ...base,
          runId: event.runId,
          role: 'assistant',
          content,
          toolCalls,
          tokenCount: counter.count(content + toolCalls),
        });
        for (const call of calls) groupOfCall.set(call.id, head);
        return;
      }
      case 'tool-call': {
        if (groupOfCall.has(event.callId)) return;
        // A call no model turn announced (a person's `/tool`): remembered as a turn of one call.
        const toolCalls = JSON.stringify([
          rememberedCall({
            id: event.callId,
            type: 'function',
            function: { name: event.name, arguments: event.arguments },
          }),
        ]);
        const head = messages.insertGroupHead({
          ...base,
          runId: event.runId,
          role: 'assistant',
          content: '',
          toolCalls,
          tokenCount: counter.count(toolCalls),
        });
        groupOfCall.set(event.callId, head);
        return;
      }
      case 'tool-result':
      case 'tool-error': {
        const groupId = groupOfCall.get(event.callId);
        if (groupId === undefined || event.name === finalAnswerToolName) return;
        const content = event.type === 'tool-result' ? event.result : event.error;
        messages.insert({
          ...base,
          runId: event.runId,
          role: 'tool',
          content,
          toolCallId: event.callId,
          groupId,
          tokenCount: counter.count(content),
        });
        return;
      }
      case 'final-answer': {
        const content = event.answer.answer;
        messages.insert({
          ...base,
          runId: event.runId,
          role: 'assistant',
          content,
          groupId: null,
          tokenCount: counter.count(content),
        });
        return;
      }
      default:
        return;
    }
  };
}

/** Arguments longer than this are not kept in memory (the step log keeps them whole). */
export const maxRememberedArguments = 2000;

/** A call as memory keeps it: huge arguments give way to a short, valid JSON note. */
function rememberedCall(call: ToolCall): ToolCall {
  if (call.function.arguments.length <= maxRememberedArguments) return call;
  const note = JSON.stringify({
    note: `arguments of ${call.function.arguments.length} characters, not kept in memory`,
  });
  return { ...call, function: { ...call.function, arguments: note } };
}
