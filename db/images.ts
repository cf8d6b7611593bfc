import type { Database } from 'better-sqlite3';

/** An image of a stored message, without its bytes: what the memory window chooses from. */
export interface ImageInfo {
  id: number;
  message_id: number;
  /** Its place among the message's images, from 0. */
  position: number;
  name: string;
  media_type: string;
  width: number;
  height: number;
  /** 1 when IMAGE_RETENTION_DAYS emptied its bytes (db/retention.ts): named in the window, never shown. */
  expired: number;
}

/** An image to store with a message. */
export interface NewImage {
  name: string;
  mediaType: string;
  width: number;
  height: number;
  bytes: Buffer;
}

/** The images posted with messages (bytes in SQLite: migration 9 says why). */
export function createImageQueries(db: Database) {
  const insert = db.prepare<{
    messageId: number;
    position: number;
    name: string;
    mediaType: string;
    width: number;
    height: number;
    bytes: Buffer;
  }>(
    `INSERT INTO message_images (message_id, conversation_id, position, name, media_type, width, height, bytes)
     VALUES (@messageId, (SELECT conversation_id FROM messages WHERE id = @messageId), @position, @name, @mediaType, @width, @height, @bytes)`,
  );
  const newestOf = db.prepare<[number, number, number], ImageInfo>(
    `SELECT id, message_id, position, name, media_type, width, height, length(bytes) = 0 AS expired FROM message_images
     WHERE conversation_id = ? AND message_id > ? ORDER BY message_id DESC, position LIMIT ?`,
  );
  const bytesOf = db.prepare<[number], Buffer>('SELECT bytes FROM message_images WHERE id = ?').pluck();
  const tellOnce = db.prepare<[number]>(
    'UPDATE conversations SET told_no_vision = 1 WHERE id = ? AND told_no_vision = 0',
  );
  const removeForDiscordMessage = db.prepare<[string]>(
    'DELETE FROM message_images WHERE message_id = (SELECT id FROM messages WHERE discord_message_id = ?)',
  );
  const idOfDiscordMessage = db
    .prepare<[string], number>('SELECT id FROM messages WHERE discord_message_id = ?')
    .pluck();
  const ofDiscordMessage = db.prepare<
    [string],
    { name: string; media_type: string; width: number; height: number; bytes: Buffer }
  >(
    `SELECT name, media_type, width, height, bytes FROM message_images
     WHERE message_id = (SELECT id FROM messages WHERE discord_message_id = ?) ORDER BY position`,
  );
  const countAll = db.prepare<[], number>('SELECT count(*) FROM message_images').pluck();

  return {
    /** Stores a message's images, in order. */
    add(messageId: number, images: readonly NewImage[]): void {
      images.forEach((image, position) => insert.run({ messageId, position, ...image }));
    },
    /** The images of a stored Discord message become these (it was edited). */
    replaceForDiscordMessage(discordMessageId: string, images: readonly NewImage[]): void {
      removeForDiscordMessage.run(discordMessageId);
      const messageId = idOfDiscordMessage.get(discordMessageId);
      if (messageId !== undefined) images.forEach((image, position) => insert.run({ messageId, position, ...image }));
    },
    /** The images stored with a Discord message, in order. */
    ofDiscordMessage: (discordMessageId: string): NewImage[] =>
      ofDiscordMessage.all(discordMessageId).map(({ media_type: mediaType, ...image }) => ({ ...image, mediaType })),
    /**
     * A conversation's newest images after message `afterId`, without bytes: newest message first,
     * each message's in order; at most `limit` (message_images_by_conversation serves it).
     */
    newestOf: (conversationId: number, afterId: number, limit: number): ImageInfo[] =>
      newestOf.all(conversationId, afterId, limit),
    bytes: (imageId: number): Buffer | undefined => bytesOf.get(imageId),
    /** True the first time for a conversation: its people are told once that the model cannot see images. */
    firstNoVisionNotice: (conversationId: number): boolean => tellOnce.run(conversationId).changes > 0,
    count: () => countAll.get()!,
  };
}

export type ImageQueries = ReturnType<typeof createImageQueries>;
