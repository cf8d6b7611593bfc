/**
 * Two checks with the bot's own smallest request (its system prompt, the default tools and
 * `final_answer`, one short message, in the form the fixes in effect give it), sent twice:
 * - whether it fits the server's context at all: a server that refuses it for its size (llama-server
 *   at its default 2,048 tokens did, issue 39) cannot answer any message with the default tools;
 * - whether the server reused the first request when it read the second, the same (its cache of the
 *   last prompt, `readPromptReuse`): what a follow-up in a thread gains from beginning as the last
 *   request did.
 */
import { finalAnswerTool } from '../agent/final-answer.ts';
import { ModelError } from '../agent/model-error.ts';
import type { ModelRequest } from '../agent/model-client.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import type { RuntimeTool } from '../agent/tool.ts';
import { fixFor } from '../model-servers/adaptation-rules.ts';
import { readContextRefusal } from '../model-servers/context-refusal.ts';
import type { ChatBody } from '../model-servers/openai-transport.ts';
import { readPromptReuse } from '../model-servers/prompt-reuse.ts';
import type { ServerFixes } from '../model-servers/server-fixes.ts';
import type { CheckupRow } from '../model-servers/server-summary.ts';
import { buildChatBody } from '../model-servers/wire-request.ts';
import { describeError } from '../agent/errors.ts';
import { probeReplyTokens, type ReplyCap } from './probe-requests.ts';
import { type RawConnection, withTimeLimit } from './raw-connection.ts';
import { refusal } from './verdicts.ts';

/** Room left for a reply when the doctor says how large a context the bot needs. */
const replyRoom = 1_000;

/** The bot's smallest request: nothing of a conversation but one short message. */
export function smallestRequest(
  tools: readonly RuntimeTool[],
  settings: { model: string; temperature: number },
  fixes: ServerFixes,
  cap: ReplyCap,
): ChatBody {
  const systemPrompt = buildSystemPrompt({
    operatorPrompt: null,
    now: new Date(),
    place: { kind: 'terminal', conversation: 'doctor' },
    participants: ['doctor'],
  });
  const request: ModelRequest = {
    messages: [
      { role: 'system', content: systemPrompt },
      { role: 'user', content: 'doctor: Hello.' },
    ],
    tools: [...tools.map((tool) => tool.spec), finalAnswerTool.spec],
    toolChoice: 'required',
  };
  // Only the prompt matters here, but a reply cut too short can be refused (OpenAI refuses a
  // function call it cannot finish within the cap), so the probes' cap.
  return { ...buildChatBody(request, settings, fixes), [cap]: probeReplyTokens };
}

type Sent = { kind: 'answered'; completion: unknown } | { kind: 'failed'; error: unknown };

async function sendOnce(connection: RawConnection, body: ChatBody, signal: AbortSignal): Promise<Sent> {
  try {
    return { kind: 'answered', completion: await connection.transport.send(body, signal) };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** The rows "context size" and "prompt reuse", from the smallest request sent twice, each within `limitMs`. */
export async function checkContextAndReuse(
  connection: RawConnection,
  body: ChatBody,
  options: { limitMs: number; signal: AbortSignal; memoryTokenBudget: number; cap: ReplyCap },
): Promise<CheckupRow[]> {
  const firstLimit = withTimeLimit(options.signal, options.limitMs);
  let first = await sendOnce(connection, body, firstLimit);
  // A server that refuses the cap by name gets the request without it, as the probes do.
  if (first.kind === 'failed' && refusesCap(first.error, body, options.cap)) {
    const { [options.cap]: _, ...uncapped } = body;
    body = uncapped as ChatBody;
    first = await sendOnce(connection, body, firstLimit);
  }
  if (first.kind === 'failed')
    return [
      contextRow(first.error, options.memoryTokenBudget, firstLimit.aborted),
      {
        check: reuseCheck,
        label: reuseLabel,
        status: 'unknown',
        result: 'not checked: the smallest request was not answered',
        action: 'not known',
      },
    ];
  const secondLimit = withTimeLimit(options.signal, options.limitMs);
  const second = await sendOnce(connection, body, secondLimit);
  const prompt = readPromptReuse(first.completion)?.promptTokens ?? usagePromptTokens(first.completion);
  return [fitsRow(prompt, options.memoryTokenBudget), reuseRow(second, secondLimit.aborted)];
}

function refusesCap(error: unknown, body: ChatBody, cap: ReplyCap): boolean {
  return error instanceof ModelError && (fixFor(error, body, {})?.fixes.dropParams?.includes(cap) ?? false);
}

const [contextCheck, contextLabel] = ['context', 'context size'];
const [reuseCheck, reuseLabel] = ['prompt-reuse', 'prompt reuse'];
const number = (value: number) => value.toLocaleString('en-US');

function usagePromptTokens(completion: unknown): number | null {
  const tokens = (completion as { usage?: { prompt_tokens?: unknown } } | null)?.usage?.prompt_tokens;
  return typeof tokens === 'number' ? tokens : null;
}

/** The smallest request was refused, or not answered: the context row says why, and the reuse row is not checked. */
function contextRow(error: unknown, budget: number, timedOut: boolean): CheckupRow {
  const sizes = error instanceof ModelError ? readContextRefusal(error) : null;
  if (!sizes) {
    const said = error instanceof ModelError && error.status !== null ? refusal(error) : describeError(error);
    return {
      check: contextCheck,
      label: contextLabel,
      status: 'unknown',
      result: `not checked: ${timedOut ? 'no answer in time' : said}`,
      action: 'not known',
    };
  }
  const needed = sizes.promptTokens + budget + replyRoom;
  const suggested = 2 ** Math.ceil(Math.log2(needed));
  return {
    check: contextCheck,
    label: contextLabel,
    status: 'fatal',
    result: `too small: ${number(sizes.contextTokens)} tokens; the bot's smallest request (system prompt, default tools, one message) is ${number(sizes.promptTokens)}`,
    action:
      `cannot work: give the server ${number(suggested)} tokens or more (llama-server -c ${suggested}; Ollama: OLLAMA_CONTEXT_LENGTH=${suggested}) ` +
      `for this request, MEMORY_TOKEN_BUDGET=${number(budget)} and a reply; a smaller MEMORY_TOKEN_BUDGET needs less`,
  };
}

function fitsRow(prompt: number | null, budget: number): CheckupRow {
  return {
    check: contextCheck,
    label: contextLabel,
    status: 'ok',
    result: prompt === null ? 'the smallest request fits' : `the smallest request fits: ${number(prompt)} tokens`,
    action: `none needed, if the server's context also holds MEMORY_TOKEN_BUDGET=${number(budget)} and a reply`,
  };
}

function reuseRow(second: Sent, timedOut: boolean): CheckupRow {
  if (second.kind === 'failed') {
    const said = second.error instanceof ModelError ? refusal(second.error) : describeError(second.error);
    return {
      check: reuseCheck,
      label: reuseLabel,
      status: 'unknown',
      result: `not checked: ${timedOut ? 'no answer in time' : said}`,
      action: 'not known',
    };
  }
  const reuse = readPromptReuse(second.completion);
  if (!reuse)
    return {
      check: reuseCheck,
      label: reuseLabel,
      status: 'unknown',
      result: 'not reported: the reply has no usage.prompt_tokens_details.cached_tokens and no timings',
      action: 'not known: the server may reuse the start of a prompt without saying so (Ollama does not say)',
    };
  const of = `${number(reuse.cachedTokens)} of ${number(reuse.promptTokens)} prompt tokens (${reuse.source})`;
  if (reuse.cachedTokens > 0)
    return {
      check: reuseCheck,
      label: reuseLabel,
      status: 'ok',
      result: `yes: the same request again reused ${of}`,
      action:
        'the server keeps what it read: a follow-up that begins as the last request did costs only its new tokens, not the whole conversation again',
    };
  const small = reuse.source === 'usage.prompt_tokens_details.cached_tokens' && reuse.promptTokens < 1024;
  return {
    check: reuseCheck,
    label: reuseLabel,
    status: 'gap',
    result: `no: the same request again reused ${of}`,
    action: small
      ? 'not known for a whole conversation: OpenAI caches prompts of 1,024 tokens and more, and this one is shorter'
      : 'every message is read whole: each answer waits for the server to read the whole conversation again',
  };
}
