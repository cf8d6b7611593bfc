import {
  type ChatInputCommandInteraction,
  type MessageComponentInteraction,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { CommandInteraction } from '../interactions/command-context.ts';
import { truncate } from '../../text/truncate.ts';
import { noPings } from './send.ts';
import { discordMessageLimit } from '../../posts/split-message.ts';

/**
 * An answer only the person who ran the command sees. After a deferral it fills the deferred
 * reply (a follow-up would be swallowed into it, whatever its flags say).
 */
export async function replyPrivately(
  interaction:
    | CommandInteraction
    | ChatInputCommandInteraction
    | MessageContextMenuCommandInteraction
    | MessageComponentInteraction<'cached'>
    | ModalSubmitInteraction,
  content: string,
): Promise<void> {
  // What a person typed can come back in the words (a name, a list of issues): never past Discord's 2,000 characters.
  const message = { content: truncate(content, discordMessageLimit), allowedMentions: noPings };
  if (interaction.deferred && !interaction.ephemeral && !interaction.replied) {
    // Deferred in public (as /tool is): the public placeholder goes, and the words stay private.
    await interaction.deleteReply().catch(() => {});
    await interaction.followUp({ ...message, flags: MessageFlags.Ephemeral });
  } else if (interaction.deferred && !interaction.replied) await interaction.editReply(message);
  else if (interaction.replied) await interaction.followUp({ ...message, flags: MessageFlags.Ephemeral });
  else await interaction.reply({ ...message, flags: MessageFlags.Ephemeral });
}
