/**
 * The slash and context-menu commands, one file each, listed here explicitly. The Discord bot
 * registers and routes exactly these. None exist yet: the terminal chat needs none, and the first
 * ones come with the Discord bot.
 */
export interface CommandRegistryEntry {
  /** The command's name as Discord shows it. */
  name: string;
}

export const commands: readonly CommandRegistryEntry[] = [];
