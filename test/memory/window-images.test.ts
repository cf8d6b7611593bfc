import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweepExpired } from '../../db/retention.ts';
import type { Store } from '../../db/store.ts';
import type { ChatMessage } from '../../src/agent/messages.ts';
import { imageTokenRule } from '../../src/images/image-tokens.ts';
import { conversationMemory, type MemorySettings } from '../../src/memory/conversation-memory.ts';
import { loadTokenCounter, type TokenCounter } from '../../src/memory/token-counter.ts';
import { dataUrlOf, imageUrlsOf, png, textOf } from '../support/images.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
let counter: TokenCounter;
beforeEach(async () => {
  ({ store } = tempStore());
  counter = await loadTokenCounter('gpt-4.1-mini');
});
afterEach(() => store.close());

const ada = { authorId: 'u1', authorName: 'Ada', discordMessageId: null };

/** A conversation of `count` messages, each with one image `image-N.png` (N from 1) of width N. */
function conversationWithImages(settings: MemorySettings, count: number) {
  const memory = conversationMemory(store, counter, settings);
  const conversation = store.conversations.ensure({
    key: 'test:images',
    title: 'images',
    guildId: null,
    channelId: null,
    startedById: 'u1',
    startedByName: 'Ada',
  });
  const ids: number[] = [];
  for (let index = 1; index <= count; index += 1) {
    const bytes = png(index, 1);
    ids.push(
      memory.recordUserMessage(conversation, {
        ...ada,
        content: `picture ${index}`,
        images: [{ name: `image-${index}.png`, mediaType: 'image/png', width: index, height: 1, bytes }],
      })!,
    );
  }
  return { memory, conversation, ids };
}

const allMessages = (window: { history: ChatMessage[]; input: ChatMessage[] }) => [...window.history, ...window.input];

describe('images in the memory window', () => {
  it('shows the newest MEMORY_IMAGES images with their bytes, and names the older ones', () => {
    const settings = {
      tokenBudget: 8000,
      messageTokenCap: 1500,
      images: 4,
      imageTokens: imageTokenRule('openai', 'gpt-4o'),
    };
    const { memory, conversation, ids } = conversationWithImages(settings, 7);
    const window = memory.loadWindow(conversation.id, [ids.at(-1)!]);
    const messages = allMessages(window);
    expect(messages.map(textOf)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => `Ada: picture ${n}\n[image: image-${n}.png]`),
    );
    expect(messages.map((message) => imageUrlsOf(message).length)).toEqual([0, 0, 0, 1, 1, 1, 1]);
    expect(imageUrlsOf(messages[3]!)).toEqual([dataUrlOf('image/png', png(4, 1))]);
    // Older ones are plain text, as before images existed.
    expect(messages[0]!.content).toBe('Ada: picture 1\n[image: image-1.png]');
    // What is sent conforms to OpenAI's spec, image parts included.
    expect(chatRequestProblems({ model: 'gpt-4o', messages })).toEqual([]);
  });

  it('names an image whose bytes IMAGE_RETENTION_DAYS emptied, and shows the older ones in its place', async () => {
    const settings = {
      tokenBudget: 8000,
      messageTokenCap: 1500,
      images: 2,
      imageTokens: imageTokenRule('openai', 'gpt-4o'),
    };
    const { memory, conversation, ids } = conversationWithImages(settings, 3);
    // The newest image's message dated past the limit: an unlikely order, but it shows the rule alone.
    store.db.prepare('UPDATE messages SET created_at = 0 WHERE id = ?').run(ids[2]);
    await sweepExpired(store.db, { messageDays: null, stepLogDays: null, imageDays: 1 });
    const messages = allMessages(memory.loadWindow(conversation.id, [ids.at(-1)!]));
    expect(messages.map(textOf)).toEqual([1, 2, 3].map((n) => `Ada: picture ${n}\n[image: image-${n}.png]`));
    expect(messages.map((message) => imageUrlsOf(message).length)).toEqual([1, 1, 0]);
    expect(chatRequestProblems({ model: 'gpt-4o', messages })).toEqual([]);
  });

  it("counts the shown images' tokens in the budget: costly images leave older messages out", () => {
    const cheap = conversationWithImages(
      { tokenBudget: 300, messageTokenCap: 1500, images: 4, imageTokens: () => 10 },
      6,
    );
    expect(allMessages(cheap.memory.loadWindow(cheap.conversation.id, [cheap.ids.at(-1)!]))).toHaveLength(6);

    const costly = conversationMemory(store, counter, {
      tokenBudget: 300,
      messageTokenCap: 1500,
      images: 4,
      imageTokens: () => 1000,
    });
    // The last 3 messages are always there; none older fits beside their images.
    expect(allMessages(costly.loadWindow(cheap.conversation.id, [cheap.ids.at(-1)!]))).toHaveLength(3);
  });

  it('gives no image quota and no tokens to messages after the one answered (a resumed run, a retry)', () => {
    const settings = { tokenBudget: 8000, messageTokenCap: 1500, images: 4, imageTokens: () => 10 };
    const { memory, conversation, ids } = conversationWithImages(settings, 1);
    // A later message with 4 images, posted while the first one is being answered.
    memory.recordUserMessage(conversation, {
      ...ada,
      content: 'four more',
      images: [1, 2, 3, 4].map((n) => ({
        name: `later-${n}.png`,
        mediaType: 'image/png',
        width: 1,
        height: 1,
        bytes: png(1, 1),
      })),
    });
    const answered = memory.loadWindow(conversation.id, [ids[0]!]);
    expect(answered.input.map(textOf)).toEqual(['Ada: picture 1\n[image: image-1.png]']);
    expect(imageUrlsOf(answered.input[0]!)).toEqual([dataUrlOf('image/png', png(1, 1))]);
    const resumed = memory.loadWindow(conversation.id, [ids[0]!], { resuming: true });
    expect(resumed.history.flatMap(imageUrlsOf)).toEqual([dataUrlOf('image/png', png(1, 1))]);

    // Nor tokens: 4 × 200 would leave no room for the older messages beside the answered one's image.
    const costly = conversationMemory(store, counter, { ...settings, tokenBudget: 400, imageTokens: () => 200 });
    const other = store.conversations.ensure({
      key: 'test:tokens',
      title: 'tokens',
      guildId: null,
      channelId: null,
      startedById: 'u1',
      startedByName: 'Ada',
    });
    for (const n of [1, 2, 3, 4]) costly.recordUserMessage(other, { ...ada, content: `older ${n}` });
    const image = { name: 'q.png', mediaType: 'image/png', width: 1, height: 1, bytes: png(1, 1) };
    const question = costly.recordUserMessage(other, { ...ada, content: 'question', images: [image] })!;
    costly.recordUserMessage(other, { ...ada, content: 'later', images: [image, image, image, image] });
    const window = costly.loadWindow(other.id, [question]);
    expect(window.history.map(textOf)).toEqual([1, 2, 3, 4].map((n) => `Ada: older ${n}`));
    expect(window.input.flatMap(imageUrlsOf)).toHaveLength(1);
  });

  it('names an image stored before the pixel budget and over it, and never counts it: it would fail every call', () => {
    const asked: [number, number][] = [];
    const settings = {
      tokenBudget: 8000,
      messageTokenCap: 1500,
      images: 4,
      imageTokens: (width: number, height: number) => (asked.push([width, height]), 100),
    };
    const { memory, conversation } = conversationWithImages(settings, 1);
    // As the bot stored it before the budget: an image claiming 2³¹ × 2³¹ (its bytes do not matter here).
    const claim = { name: 'claim.png', mediaType: 'image/png', width: 2 ** 31, height: 2 ** 31, bytes: png(1, 1) };
    const last = memory.recordUserMessage(conversation, { ...ada, content: 'look', images: [claim] })!;
    const messages = allMessages(memory.loadWindow(conversation.id, [last]));
    expect(messages.map(textOf)).toEqual(['Ada: picture 1\n[image: image-1.png]', 'Ada: look\n[image: claim.png]']);
    // The image within the budget keeps its place among those shown; the claim is only named.
    expect(messages.map((message) => imageUrlsOf(message).length)).toEqual([1, 0]);
    expect(asked).toEqual([[1, 1]]);
  });

  it("never shows another conversation's images", () => {
    const settings = { tokenBudget: 8000, messageTokenCap: 1500, images: 4, imageTokens: () => 10 };
    const { memory, ids } = conversationWithImages(settings, 2);
    const other = store.conversations.ensure({
      key: 'test:other',
      title: 'other',
      guildId: null,
      channelId: null,
      startedById: 'u2',
      startedByName: 'Bob',
    });
    const plain = memory.recordUserMessage(other, { ...ada, content: 'no pictures here' })!;
    const window = memory.loadWindow(other.id, [plain]);
    expect(allMessages(window).map((message) => message.content)).toEqual(['Ada: no pictures here']);
    expect(ids).toHaveLength(2);
  });

  it('shows no image to a model that cannot see: every image is named', () => {
    const { memory, conversation, ids } = conversationWithImages({ tokenBudget: 8000, messageTokenCap: 1500 }, 2);
    const messages = allMessages(memory.loadWindow(conversation.id, [ids.at(-1)!]));
    expect(messages.map((message) => message.content)).toEqual([
      'Ada: picture 1\n[image: image-1.png]',
      'Ada: picture 2\n[image: image-2.png]',
    ]);
  });

  it("deletes a message's images with the message, and a conversation's with the conversation", () => {
    const { conversation, ids } = conversationWithImages({ tokenBudget: 8000, messageTokenCap: 1500 }, 3);
    expect(store.images.count()).toBe(3);
    store.db.prepare('DELETE FROM messages WHERE id = ?').run(ids[0]);
    expect(store.images.count()).toBe(2);
    store.conversations.purge(conversation.id);
    expect(store.images.count()).toBe(0);
  });
});

describe("OpenAI's spec check", () => {
  it('takes text and image parts in user messages, and refuses a malformed part', () => {
    const parts = [
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: dataUrlOf('image/png', png(1, 1)) } },
    ];
    expect(chatRequestProblems({ model: 'm', messages: [{ role: 'user', content: parts }] })).toEqual([]);
    expect(
      chatRequestProblems({
        model: 'm',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 'x' }] }],
      }),
    ).not.toEqual([]);
    expect(
      chatRequestProblems({ model: 'm', messages: [{ role: 'user', content: [{ type: 'picture', data: 'x' }] }] }),
    ).not.toEqual([]);
  });
});
