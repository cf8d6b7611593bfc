/**
 * A run's tool calls as posts: each model turn's calls rendered as one message once they have all
 * finished, in turn order. Comes from: a run's events (a listener of run-in-discord.ts). Goes to:
 * `post`, which sends the text where the run posts (Discord; no client is known here).
 */
import type { AgentEventSink } from '../agent/events.ts';
import { finalAnswerToolName } from '../agent/final-answer.ts';
import type { Logger } from '../agent/logger.ts';
import type { ToolImage } from '../agent/tool-images.ts';
import { type FinishedCall, renderToolTurn, type ToolPosts } from './render.ts';

/**
 * Sends a tool turn's text (links without previews), then the images its tools returned for people
 * (none: nothing more); the same `nonceSeed` never posts twice. `step`: the model turn's, whose
 * progress message (tool-progress-posts.ts) the text may replace.
 */
export type ToolTurnPoster = (
  text: string,
  nonceSeed: string,
  step: number,
  images: readonly ToolImage[],
) => Promise<unknown>;

export interface ToolPostSink {
  sink: AgentEventSink;
  /** Waits for every post to be sent. */
  flush(): Promise<void>;
}

/**
 * Posts each model turn's tool calls as one message, once they have all finished, in turn order.
 * Sinks are synchronous, so the posts go into a chain that `flush` waits for; a failed post is
 * logged and does not stop the run.
 */
export function toolPostSink(post: ToolTurnPoster, mode: ToolPosts, logger: Logger): ToolPostSink {
  const turns = new Map<number, { order: string[]; calls: Map<string, FinishedCall | null>; images: ToolImage[][] }>();
  const argumentsOf = new Map<string, string>();
  let chain = Promise.resolve();

  const sink: AgentEventSink = (event) => {
    if (mode === 'off') return;
    if (event.type === 'model-call') {
      const calls = (event.message.tool_calls ?? []).filter((call) => call.function.name !== finalAnswerToolName);
      if (calls.length === 0) return;
      turns.set(event.step, {
        order: calls.map((call) => call.id),
        calls: new Map(calls.map((call) => [call.id, null])),
        images: [],
      });
      for (const call of calls) argumentsOf.set(call.id, call.function.arguments);
      return;
    }
    if (event.type !== 'tool-result' && event.type !== 'tool-error') return;
    const turn = turns.get(event.step);
    if (!turn?.calls.has(event.callId)) return;
    turn.calls.set(event.callId, {
      name: event.name,
      arguments: argumentsOf.get(event.callId) ?? '',
      ok: event.type === 'tool-result',
      text: event.type === 'tool-result' ? event.result : event.error,
    });
    // In the turn's order of calls, as their text is.
    if (event.type === 'tool-result' && event.images) turn.images[turn.order.indexOf(event.callId)] = [...event.images];
    if ([...turn.calls.values()].some((call) => call === null)) return;
    turns.delete(event.step);
    const text = renderToolTurn(
      turn.order.map((id) => turn.calls.get(id)!),
      mode,
    );
    const { step } = event;
    const seed = `${event.runId}:tools:${step}`;
    const images = turn.images.flat();
    chain = chain
      .then(async () => void (await post(text, seed, step, images)))
      .catch((error: unknown) => logger.warn({ err: error, runId: event.runId }, 'could not post the tool calls'));
  };

  return {
    sink,
    flush: () => chain,
  };
}
