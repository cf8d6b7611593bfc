/**
 * Each place its own model: moderators choose one per channel or server (`/settings model`), a
 * conversation's starter per thread (`/model`); each model talks to its own scripted server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BotWorld } from '../../support/bot-harness.ts';
import { apiError, type ChatRequest } from '../../support/fake-model.ts';
import { ask, command, sayIn, settings, start } from '../../support/place-settings-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

describe('models', () => {
  it('each place uses the model chosen for it; each server sees only its runs; /model picks one for a thread', async () => {
    world = await start({
      models: [
        { name: 'fast', price: { input: 1000, output: 2000 } },
        { name: 'strong', description: 'Careful and slow', vision: true, contextTokens: 128000 },
      ],
    });
    const { discord } = world;
    const fast = world.modelServers.get('fast')!;
    const strong = world.modelServers.get('strong')!;

    const choices = discord.registeredCommands().find((registered) => registered.name === 'model')
      ?.options?.[0]?.choices;
    expect(choices?.map((choice) => choice.value)).toEqual(['fast', 'strong', 'inherit']);

    await settings('model', discord.channels.random, { model: 'strong' });
    const shown = await settings('show', discord.channels.random);
    expect(shown.content).toMatch(
      /- Model: \*\*strong\*\* \(set for the channel <#100000000000000011> by Ada, <t:\d+:R>\)/,
    );
    expect(shown.content).toContain(
      '**Models on offer**\n- fast\n- strong: Careful and slow (reads images, 128,000 tokens of context)',
    );
    const general = await ask(discord.channels.general, 'in general', fast);
    await ask(discord.channels.random, 'in random', strong);
    expect(fast.requests).toHaveLength(1);
    expect(strong.requests).toHaveLength(1);
    expect(strong.requests[0]!.model).toBe('strong-model');

    // The conversation's starter picks a model for her thread; a member who did not start it cannot.
    const bobs = await command({ name: 'model', channelId: general.id, options: { model: 'strong' }, author: 'bob' });
    expect(bobs).toMatchObject({
      ephemeral: true,
      content: 'Only the person who started this conversation, or a moderator, can choose its model.',
    });
    const picked = await command({ name: 'model', channelId: general.id, options: { model: 'strong' } });
    expect(picked).toMatchObject({ ephemeral: false, content: 'Ada chose **strong** for this conversation.' });
    await sayIn(general.id, 'think harder', strong);
    expect(strong.requests).toHaveLength(2);
    expect(fast.requests).toHaveLength(1);

    // Moderators keep #general on fast: the thread's own choice no longer counts, and /model is refused.
    await settings('model', discord.channels.general, { model: 'fast', only: true });
    await sayIn(general.id, 'and now?', fast);
    expect(fast.requests).toHaveLength(2);
    const refused = await command({ name: 'model', channelId: general.id, options: { model: 'strong' } });
    expect(refused).toMatchObject({
      ephemeral: true,
      content: 'The moderators keep this channel on **fast**: /model cannot choose another here.',
    });
    expect(world.store.runs.recent(null, 10).map((run) => run.model_name)).toEqual([
      'fast',
      'strong',
      'strong',
      'fast',
    ]);

    // /usage: tokens per model, and the cost where the operator gave a price (100 + 20 tokens a call).
    const usage = await command({ name: 'usage', channelId: discord.channels.general });
    expect(usage.content).toContain(
      '**Per model**\n- fast: 240 tokens, 2 runs, about $0.28\n- strong: 240 tokens, 2 runs\n',
    );
  });

  it("a model's context size bounds the memory window sent to it", async () => {
    world = await start({ models: [{ name: 'fast' }, { name: 'tiny', contextTokens: 100 }] });
    const { discord } = world;
    const tiny = world.modelServers.get('tiny')!;
    const thread = await ask(discord.channels.general, 'the very first question');
    // About 60 tokens each: more than the tiny model's window holds.
    for (const line of ['second', 'third', 'fourth'])
      await sayIn(thread.id, `${line}: ${'words to remember '.repeat(20)}`);
    const mentions = (request: ChatRequest | undefined) =>
      // Past the system message, which names the thread after that question.
      (request?.messages ?? []).slice(1).some((message) => String(message.content).includes('the very first question'));
    expect(mentions(world.model.requests.at(-1))).toBe(true);

    await command({ name: 'model', channelId: thread.id, options: { model: 'tiny' } });
    await sayIn(thread.id, 'fifth', tiny);
    // Half of 100 tokens: the last messages only (they are always sent), not the first question.
    expect(mentions(tiny.requests[0])).toBe(false);
    expect(tiny.requests[0]!.messages.length).toBeLessThan(world.model.requests.at(-1)!.messages.length);
  });

  it("a long rate limit of one model's server holds back that model's runs only", async () => {
    // The wait is over the client's limit (so it is reported, not slept), and short for a test.
    world = await start({ models: [{ name: 'fast' }, { name: 'strong' }] }, { maxRetryWaitSeconds: 1 });
    const { discord } = world;
    const strong = world.modelServers.get('strong')!;
    await settings('model', discord.channels.random, { model: 'strong' });
    world.model.enqueue(apiError(429, 'Rate limit reached', { headers: { 'retry-after': '2' } }));
    const general = await ask(discord.channels.general, 'one', world.model, null);
    expect(discord.botMessages(general.id).map((post) => post.content)).toEqual([
      'The model is rate-limited right now. Please try again in 2 seconds.',
    ]);
    // The other model's conversations are not told to wait, nor held back.
    const random = await ask(discord.channels.random, 'two', strong, 'From strong.');
    expect(discord.botMessages(random.id).map((post) => post.content)).toEqual(['From strong.']);
  });
});
