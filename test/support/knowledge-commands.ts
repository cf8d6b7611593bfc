/** What the `/knowledge` tests share: the command run as a member, its last private words, a message's link. */
import type { FakeAttachmentInput, FakeInteraction, FakeInteractionReply } from './fake-discord.ts';
import { worldHolder } from './place-settings-world.ts';

/** Runs `/knowledge <subcommand>` as `author` and resolves with the reply that ends it (not a progress line). */
export async function knowledge(
  subcommand: string,
  options: Record<string, FakeAttachmentInput | string | number | boolean> = {},
  author: 'ada' | 'bob' = 'ada',
  channelId = worldHolder.world!.discord.channels.general,
): Promise<{ interaction: FakeInteraction; reply: FakeInteractionReply }> {
  const interaction = await worldHolder.world!.discord.userRunsCommand({
    name: 'knowledge',
    subcommand,
    channelId,
    options,
    author,
  });
  // The private reply's last words: not a progress line.
  const reply = await interaction.waitForReply((answer) => answer.ephemeral && !answer.content.endsWith('…'));
  return { interaction, reply };
}

/** The jump link of a message of the seeded server (in #general unless said). */
export function linkOf(messageId: string, channelId = worldHolder.world!.discord.channels.general): string {
  return `https://discord.com/channels/${worldHolder.world!.discord.guildId}/${channelId}/${messageId}`;
}

/** A member's message of #general added with "Add to knowledge" by Ada; resolves with the reply that ends it. */
export async function addToKnowledge(
  messageId: string,
  channelId = worldHolder.world!.discord.channels.general,
): Promise<string> {
  const interaction = await worldHolder.world!.discord.userRunsCommand({
    name: 'Add to knowledge',
    type: 'message',
    channelId,
    targetMessageId: messageId,
    author: 'ada',
  });
  return (await interaction.waitForReply((answer) => !answer.content.endsWith('…'))).content;
}
