/**
 * Every conversation has one key, made here and nowhere else. A Discord conversation is keyed by
 * its thread's id; a thread made from a message takes that message's id, so a mention answered in
 * a new thread is keyed by the mention's id from the moment it arrives.
 */

/** The conversation of a Discord thread, or of the channel message a thread is (or would be) made from. */
export const discordConversationKey = (threadOrMessageId: string) => `discord:${threadOrMessageId}`;

/** Where `/tool` calls used outside a conversation thread are recorded, one per channel. */
export const toolCallsConversationKey = (channelId: string) => `discord:tool:${channelId}`;

/** A conversation at the terminal (`npm run chat --thread NAME`). */
export const terminalConversationKey = (name: string) => `terminal:${name}`;

/**
 * A person's conversation through the app they installed to their own account, in one place
 * (USER_INSTALL): keyed to the person and the channel (a server's channel, a group DM, a DM), since
 * there is no thread of the bot's to hold it. Not under `discord:`: nothing reads its channel.
 */
export const userInstallConversationKey = (userId: string, channelId: string) => `user-install:${userId}:${channelId}`;
