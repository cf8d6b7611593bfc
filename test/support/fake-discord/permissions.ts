/**
 * The permission bits the fake seeds and enforces. The bot's permissions in a channel are the OR of
 * its roles' bits (@everyone and its managed role); channel overwrites are not modelled.
 */
import { PermissionFlagsBits as Bits } from 'discord.js';

/** What @everyone may do on a fresh server (a subset of Discord's defaults that matter here). */
export const defaultEveryonePermissions =
  Bits.ViewChannel |
  Bits.SendMessages |
  Bits.SendMessagesInThreads |
  Bits.CreatePublicThreads |
  Bits.ReadMessageHistory |
  Bits.EmbedLinks |
  Bits.AttachFiles |
  Bits.AddReactions |
  Bits.UseApplicationCommands;

/**
 * What the bot's invite grants: everything it needs to answer in threads, and to archive and lock
 * them. Not Administrator, so that a missing bit shows up in tests as it would in production.
 */
export const defaultBotPermissions = defaultEveryonePermissions | Bits.ManageThreads | Bits.CreatePrivateThreads;

/** Whether `granted` includes every bit of `required` (Administrator includes all). */
export function allows(granted: bigint, required: bigint): boolean {
  return (granted & Bits.Administrator) !== 0n || (granted & required) === required;
}

export { Bits as PermissionBits };
