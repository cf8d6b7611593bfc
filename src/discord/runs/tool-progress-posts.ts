/**
 * A long tool's progress, shown in the thread while it runs. Comes from: a run's `tool-progress`
 * events (a listener of run-in-discord.ts). Does: one message per model turn, a line
 * "🔧 **tool** … 40% (message)" for each of its calls that told its progress, posted a second after
 * the first word of progress (a quick tool never shows one) and edited at most once a second, with
 * the live answer's pacing (LiveAnswer). Goes to: the turn's tool post (tool-post-sink.ts) is edited
 * into that message, so that the progress is replaced by the outcome rather than left above it.
 */
import type { AgentEventSink, ToolProgressEvent } from '../../agent/events.ts';
import type { Logger } from '../../agent/logger.ts';
import type { ToolPosts } from '../../posts/render.ts';
import { toolPostSink, type ToolTurnPoster } from '../../posts/tool-post-sink.ts';
import { type CallProgress, renderToolProgress } from '../../posts/tool-progress-line.ts';
import type { BotServices } from '../bot-services.ts';
import { describeDiscordError } from '../discord-errors.ts';
import type { TargetToBe } from '../outbound/posting-channel.ts';
import { sendText } from '../outbound/send.ts';
import { imagesNotPosted, sendToolImages } from '../outbound/image-files.ts';
import type { ToolImage } from '../../agent/tool-images.ts';
import { LiveAnswer } from './live-answer.ts';

interface ToolProgressPosts {
  sink: AgentEventSink;
  /** Posts a turn's tool post: into its progress message when one is shown, else as `post` does. */
  post: ToolTurnPoster;
}

interface ToolProgressOptions {
  runId: string;
  /** TOOL_POSTS: with `off`, no progress is shown either. */
  mode: ToolPosts;
  /** How a tool post goes out when no progress message was shown for its turn. */
  post: ToolTurnPoster;
  /** How the images of a tool post shown in its progress message go out (after it). */
  postImages: (images: readonly ToolImage[], nonceSeed: string) => Promise<void>;
  /** Each message posted (to be recorded with the run, as tool posts are). */
  onPosted: (messageId: string) => void;
  logger: Logger;
  /** The least time between two edits, and before the first post (1 s). */
  intervalMs?: number;
}

interface TurnProgress {
  shown: LiveAnswer;
  calls: Map<string, CallProgress>;
}

function toolProgressPosts(target: TargetToBe, options: ToolProgressOptions): ToolProgressPosts {
  const turns = new Map<number, TurnProgress>();
  // Tool posts reply to nothing: the progress message, which becomes one, neither.
  const where = Promise.resolve(target).then((known) => ({ ...known, replyTo: null }));
  // Rejected only if the thread was never made: the run's own posts say so.
  where.catch(() => undefined);

  const turnOf = (event: ToolProgressEvent): TurnProgress => {
    const known = turns.get(event.step);
    if (known) return known;
    const shown = new LiveAnswer(where, {
      runId: options.runId,
      nonceSeed: `${options.runId}:progress:${event.step}`,
      suppressEmbeds: true,
      postAtSentence: false,
      onPosted: options.onPosted,
      logger: options.logger,
      ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    });
    const turn = { shown, calls: new Map<string, CallProgress>() };
    turns.set(event.step, turn);
    return turn;
  };

  const sink: AgentEventSink = (event) => {
    if (options.mode === 'off') return;
    if (event.type === 'run-end') {
      // A turn cut short (the bot shutting down) leaves its last progress shown, and no edit pending.
      for (const turn of turns.values()) void turn.shown.close();
      return;
    }
    if (event.type !== 'tool-progress') return;
    const turn = turnOf(event);
    const { name, progress, total, message } = event;
    turn.calls.set(event.callId, { name, progress, total, message });
    turn.shown.show(renderToolProgress([...turn.calls.values()]));
  };

  const post: ToolTurnPoster = async (text, nonceSeed, step, images) => {
    const turn = turns.get(step);
    turns.delete(step);
    if (turn) {
      await turn.shown.close();
      if (turn.shown.started) {
        const edited = await turn.shown.finish(text).then(
          () => true,
          (error: unknown) => {
            // Its message was deleted, say: the tool post goes out as a message of its own.
            options.logger.warn(
              { err: error, runId: options.runId, cause: describeDiscordError(error) },
              'could not edit the progress shown into the tool post',
            );
            return false;
          },
        );
        if (edited) return options.postImages(images, nonceSeed);
      }
    }
    return options.post(text, nonceSeed, step, images);
  };

  return { sink, post };
}

/**
 * A run's tool posts in Discord: each model turn's calls posted once they have all finished
 * (tool-post-sink.ts), into the message that showed their progress if one did, and the images the
 * tools returned for people after it, once `allowsImages` (the place's content check, as for an
 * answer) lets them. `sinks` hear the run's events; `flush` waits for every post.
 */
export function toolPostsOf(
  services: Pick<BotServices, 'store' | 'discord' | 'logger'>,
  target: TargetToBe,
  runId: string,
  allowsImages: ((images: readonly ToolImage[]) => Promise<boolean>) | null = null,
): { sinks: AgentEventSink[]; flush(): Promise<void> } {
  const onPosted = (messageId: string) => services.store.runs.addPostedMessage(runId, messageId);
  const { logger } = services;
  // The images go in a message of their own after the text, which may have been the progress message.
  const postImages = async (images: readonly ToolImage[], nonceSeed: string) => {
    if (images.length === 0) return;
    const { channel } = await target;
    const seed = `${nonceSeed}:images`;
    if (allowsImages && !(await allowsImages(images))) {
      const held = imagesNotPosted(images.length, 'the content check held them back');
      await sendText(channel, held, { nonceSeed: seed, suppressEmbeds: true, onSent: onPosted });
      return;
    }
    await sendToolImages(channel, images, { nonceSeed: seed, onSent: onPosted, logger });
  };
  const postToolTurn: ToolTurnPoster = async (text, nonceSeed, _step, images) => {
    await sendText((await target).channel, text, { nonceSeed, suppressEmbeds: true, onSent: onPosted });
    await postImages(images, nonceSeed);
  };
  const mode = services.discord.toolPosts;
  const progress = toolProgressPosts(target, { runId, mode, post: postToolTurn, postImages, onPosted, logger });
  const posts = toolPostSink(progress.post, mode, services.logger);
  return { sinks: [posts.sink, progress.sink], flush: () => posts.flush() };
}
