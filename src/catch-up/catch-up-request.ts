/**
 * What a `/summarize` call asks the place's model: one forced call of one tool (`write_catch_up`),
 * as memory summaries do (src/memory/summary-request.ts): the form every server the agent talks to
 * takes. A piece of the transcript is summed up (map), or the pieces' summaries merged (reduce).
 * Messages are numbered (`#12`), and the model cites them by number: the numbers become jump links
 * afterwards (catch-up-links.ts), so the model neither spends tokens on links nor invents one.
 */
import type { FunctionSpec, ModelRequest, ModelResponse } from '../agent/model-client.ts';
import { summaryOfReply } from '../memory/summary-request.ts';

const catchUpToolName = 'write_catch_up';

const catchUpTool: FunctionSpec = {
  type: 'function',
  function: {
    name: catchUpToolName,
    description: 'Record the catch-up summary.',
    parameters: {
      type: 'object',
      properties: { summary: { type: 'string', description: 'The summary, in Discord Markdown.' } },
      required: ['summary'],
      additionalProperties: false,
    },
    strict: true,
  },
};

const citing =
  'Name who said what. After each point, cite the messages it comes from by their numbers as they are given, such as (#12) or (#12, #15); ' +
  'never write links or numbers that are not given.';

/** The request that sums up `lines` (a piece of the transcript, oldest first) in at most `maxWords`. */
export function pieceRequest(lines: readonly string[], maxWords: number, part: string | null): ModelRequest {
  const instructions =
    'You help a member of a chat server catch up on what they missed. Sum up the messages below: topics, decisions, questions asked and answered, open questions. ' +
    `${citing} Write at most ${maxWords} words, in the messages' language, and call ${catchUpToolName} with it.`;
  return request(instructions, `${part ? `${part}. ` : ''}Messages, oldest first:\n${lines.join('\n')}`);
}

/** The request that merges the summaries of consecutive parts of one span into one summary. */
export function mergeRequest(summaries: readonly string[], maxWords: number): ModelRequest {
  const instructions =
    'You help a member of a chat server catch up on what they missed. Below are summaries of consecutive parts of the conversation, oldest first. ' +
    `Merge them into one summary. Keep the message numbers they cite. ${citing} Write at most ${maxWords} words and call ${catchUpToolName} with it.`;
  return request(instructions, summaries.map((summary, index) => `Part ${index + 1}:\n${summary}`).join('\n\n'));
}

function request(instructions: string, content: string): ModelRequest {
  return {
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content },
    ],
    tools: [catchUpTool],
    toolChoice: { name: catchUpToolName },
  };
}

/** The summary a reply gives (the tool's argument, or the text of a server that answered without the call); null: none. */
export const catchUpOfReply = (response: ModelResponse) => summaryOfReply(response, catchUpToolName);
