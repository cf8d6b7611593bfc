/**
 * The Confirm / Cancel port of one run in Discord (and its port of requests for input): questions go where the run posts, wait
 * TOOL_CONFIRM_SECONDS, and their outcome goes to `onDestructiveTool` (tool-confirmation.ts).
 */
import type { AskInput, ConfirmTool } from '../../agent/tool.ts';
import type { BotServices } from '../bot-services.ts';
import type { TargetToBe } from '../outbound/posting-channel.ts';

/** A question left this long unanswered cancels its call (TOOL_CONFIRM_SECONDS' default). */
const defaultConfirmMs = 60_000;

export function confirmationPort(
  services: Pick<BotServices, 'confirmations' | 'onDestructiveTool' | 'discord' | 'logger'>,
  plan: { target: TargetToBe; conversation: { guild_id: string | null } },
  runId: string,
): ConfirmTool {
  return services.confirmations.port({
    channel: async () => (await plan.target).channel,
    timeoutMs: services.discord.toolConfirmMs ?? defaultConfirmMs,
    onOutcome: (request, outcome, channelId) => {
      try {
        services.onDestructiveTool?.({
          runId,
          tool: request.tool,
          arguments: request.arguments,
          guildId: plan.conversation.guild_id,
          channelId,
          asker: request.requester,
          outcome,
        });
      } catch (error) {
        // A listener's fault must not decide the call.
        services.logger.warn({ err: error, tool: request.tool }, 'onDestructiveTool failed');
      }
    },
  });
}

/**
 * The port of a run's requests for input (input-requests.ts): posted where the run posts, waiting
 * TOOL_CONFIRM_SECONDS as a confirmation does (the tool's own time limit bounds it too).
 */
export function inputPort(
  services: Pick<BotServices, 'inputRequests' | 'discord'>,
  plan: { target: TargetToBe },
): AskInput {
  return services.inputRequests.port({
    channel: async () => (await plan.target).channel,
    timeoutMs: services.discord.toolConfirmMs ?? defaultConfirmMs,
  });
}
