import { OAuth2Scopes, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

/** What the bot needs in a server: read, write, open threads and write in them, show files and links. */
export const botPermissions = new PermissionsBitField([
  PermissionFlagsBits.ViewChannel,
  PermissionFlagsBits.SendMessages,
  PermissionFlagsBits.SendMessagesInThreads,
  PermissionFlagsBits.CreatePublicThreads,
  PermissionFlagsBits.ReadMessageHistory,
  PermissionFlagsBits.EmbedLinks,
  PermissionFlagsBits.AttachFiles,
]);

/** The link that adds the bot to a server with exactly those permissions. */
export function inviteUrl(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: OAuth2Scopes.Bot,
    permissions: botPermissions.bitfield.toString(),
  });
  return `https://discord.com/oauth2/authorize?${query.toString()}`;
}

/**
 * The link that installs the app to the account of whoever opens it (USER_INSTALL): the commands'
 * scope with `integration_type` 1, USER_INSTALL; no bot and no permissions, which a user install
 * has none of (https://discord.com/developers/docs/topics/oauth2#authorization-code-grant).
 */
export function userInstallUrl(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    integration_type: '1',
    scope: OAuth2Scopes.ApplicationsCommands,
  });
  return `https://discord.com/oauth2/authorize?${query.toString()}`;
}
