/**
 * The decisive check: the bot's own client, with the fixes it knows and what it learns remembered,
 * runs the real agent loop once, with one tool to call and then `final_answer`. The bot can work
 * with the server and model if and only if this run answers; whatever the probes found, this is
 * what the bot does in a thread.
 */
import { z } from 'zod';
import type { AgentEvent } from '../agent/events.ts';
import { silentLogger } from '../agent/logger.ts';
import { runAgent } from '../agent/run-agent.ts';
import { fromZodTool } from '../agent/runtime-tool.ts';
import { buildSystemPrompt } from '../agent/system-prompt.ts';
import { createOpenAIModelClient, type OpenAIModelClientOptions } from '../model-servers/openai-model-client.ts';
import type { ServerRecords } from '../model-servers/server-records.ts';
import type { CheckupRow } from '../model-servers/server-summary.ts';
import { truncate } from '../text/truncate.ts';

/** The tool the run is told to call: it answers at once, so that only the model is tested. */
const ping = fromZodTool({
  name: 'ping',
  description: 'Answers pong with the value it is given.',
  parameters: z.object({ value: z.string().describe('Any short text.') }),
  execute: ({ value }) => ({ pong: value }),
});

/** What the run is asked: one call of ping, then an answer. */
const endToEndInstruction = 'Call ping with {"value":"ok"}, then give your answer.';

/** Runs the agent once with the bot's client; the row says whether the bot can work, and how well. */
export async function runEndToEnd(
  settings: OpenAIModelClientOptions,
  records: ServerRecords,
  limitMs: number,
): Promise<CheckupRow> {
  const limitSeconds = Math.max(1, Math.floor(limitMs / 1000));
  const model = createOpenAIModelClient(
    // The bot's settings, with waits cut to fit the doctor's minute.
    {
      ...settings,
      timeoutSeconds: Math.min(settings.timeoutSeconds, limitSeconds),
      maxRetryWaitSeconds: Math.min(settings.maxRetryWaitSeconds, 5),
    },
    { records, logger: silentLogger },
  );
  const events: AgentEvent[] = [];
  const result = await runAgent({
    model,
    systemPrompt: buildSystemPrompt({
      operatorPrompt: null,
      now: new Date(),
      place: { kind: 'terminal', conversation: 'doctor' },
      participants: ['doctor'],
    }),
    history: [],
    input: [{ role: 'user', content: endToEndInstruction }],
    tools: [ping],
    context: {
      conversationId: 'doctor',
      guildId: null,
      channelId: null,
      requester: { id: 'doctor', displayName: 'doctor', isModerator: false },
      logger: silentLogger,
    },
    // Room for the call, the answer and one nudge; the last step names final_answer, as in the bot.
    settings: { maxSteps: 4, maxToolCallsPerTurn: 4, runTimeoutMs: limitMs, toolTimeoutMs: 5_000 },
    onEvent: (event) => void events.push(event),
  });
  const [check, label] = ['end-to-end', 'end to end (agent run)'];
  if (result.status !== 'answered') {
    const why = result.error?.message ?? result.stopReason ?? result.status;
    return {
      check,
      label,
      status: 'fatal',
      result: `${result.status}: ${truncate(why.replace(/\s+/g, ' '), 120)}`,
      action: `cannot work: ${result.userMessage ?? 'the run gave no answer'}`,
    };
  }
  const steps = `${result.steps} step${result.steps === 1 ? '' : 's'}`;
  const pinged = events.some((event) => event.type === 'tool-result' && event.name === 'ping');
  const plainText = events.some((event) => event.type === 'final-answer' && event.fallback === 'plain-text');
  if (plainText)
    return {
      check,
      label,
      status: 'gap',
      result: `answered in plain text after a nudge (${steps})`,
      action: 'works, barely: the model does not call tools; try another model, or TOOL_PROTOCOL=text',
    };
  if (!pinged)
    return {
      check,
      label,
      status: 'gap',
      result: `answered in ${steps} without calling ping`,
      action: 'works, but the model skipped the tool it was told to call',
    };
  return {
    check,
    label,
    status: 'ok',
    result: `answered in ${steps}: ping, then final_answer`,
    action: 'the bot can work with this server and model',
  };
}
