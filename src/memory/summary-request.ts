/**
 * What a summary call asks the place's model: the summary so far and the turns that fell out of
 * the memory window, as a transcript, to be merged into one new summary. It is one forced call of
 * one tool (`write_summary`), the form every server the agent talks to already takes (native tools,
 * or the text protocol the adapter falls back to), rather than a second, tool-less kind of request.
 */
import type { ToolCall } from '../agent/messages.ts';
import type { FunctionSpec, ModelRequest, ModelResponse } from '../agent/model-client.ts';
import type { MessageRow } from '../../db/messages.ts';
import type { TokenCounter } from './token-counter.ts';
import { formatUserContent } from './window.ts';

const summaryToolName = 'write_summary';

/** How the summary opens the window: the model reads it as what was said before the messages it sees. */
export const summaryLead = 'Earlier in this conversation: ';

/** A tool's result takes at most this many tokens of a transcript: results are bulky, the turns around them say what mattered. */
const toolResultTokens = 200;

const summaryTool: FunctionSpec = {
  type: 'function',
  function: {
    name: summaryToolName,
    description: 'Record the new running summary of the conversation.',
    parameters: {
      type: 'object',
      properties: { summary: { type: 'string', description: 'The whole new summary, in plain prose.' } },
      required: ['summary'],
      additionalProperties: false,
    },
    strict: true,
  },
};

/** The request that merges `previous` (null: none yet) with the transcript of `rows`. */
export function summaryRequest(
  previous: string | null,
  rows: readonly MessageRow[],
  counter: TokenCounter,
  maxWords: number,
): ModelRequest {
  const instructions =
    'You keep the running summary of a chat conversation for an assistant that can no longer see its older messages. ' +
    'Merge the summary so far with the messages below into one new summary. Keep what the assistant may need later: ' +
    'who said what, names, facts, figures, decisions, requests and what was answered, open questions. ' +
    `Write at most ${maxWords} words, in the conversation's language, and call ${summaryToolName} with it.`;
  const transcript = rows.map((row) => transcriptLine(row, counter)).join('\n');
  return {
    messages: [
      { role: 'system', content: instructions },
      {
        role: 'user',
        content: `Summary so far:\n${previous ?? '(none yet)'}\n\nMessages to add, oldest first:\n${transcript}`,
      },
    ],
    tools: [summaryTool],
    toolChoice: { name: summaryToolName },
  };
}

/** One stored row as a line of the transcript. */
function transcriptLine(row: MessageRow, counter: TokenCounter): string {
  if (row.role === 'user') return formatUserContent(row.author_name, row.content);
  if (row.role === 'tool') return `(tool result) ${cut(row.content, counter)}`;
  if (row.tool_calls === null) return `assistant: ${row.content}`;
  const calls = (JSON.parse(row.tool_calls) as ToolCall[])
    .map((call) => `${call.function.name}(${cut(call.function.arguments, counter)})`)
    .join(', ');
  return `assistant${row.content ? `: ${row.content}` : ''} (called ${calls})`;
}

function cut(text: string, counter: TokenCounter): string {
  const kept = counter.truncate(text, toolResultTokens);
  return kept.length < text.length ? `${kept}[…cut]` : text;
}

/**
 * The summary a reply gives: the tool's argument (`toolName`'s `summary`: `/summarize`'s tool takes
 * the same form), or the reply's text from a server that answered without the call. Null: none.
 */
export function summaryOfReply(response: ModelResponse, toolName = summaryToolName): string | null {
  const call = response.message.tool_calls?.find((candidate) => candidate.function.name === toolName);
  let summary: unknown = response.message.content;
  if (call) {
    try {
      summary = (JSON.parse(call.function.arguments) as { summary?: unknown }).summary;
    } catch {
      summary = null;
    }
  }
  return typeof summary === 'string' && summary.trim() !== '' ? summary.trim() : null;
}
