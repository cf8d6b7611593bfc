/**
 * web_search in places: /help says how to add web search when the bot has none, and lists the tool
 * when it has; `/settings tools` switches it off in a channel like any tool, and /help says so.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { builtInTools, webTools } from '../../tools/index.ts';
import type { BotWorld } from '../support/bot-harness.ts';
import { startFakeSearxng } from '../support/fake-search/searxng.ts';
import type { FakeSearch } from '../support/fake-search/server.ts';
import { ask, command, offered, settings, start } from '../support/place-settings-world.ts';

let world: BotWorld;
let provider: FakeSearch | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
  await provider?.close();
  provider = undefined;
});

const hint =
  'I cannot search the web here: the operator can add it by setting SEARXNG_URL (a SearXNG instance), BRAVE_API_KEY or TAVILY_API_KEY (README, "Web search").';

describe('web_search in places', () => {
  it('/help without web search says how the operator adds it, to moderators', async () => {
    world = await start();
    const help = await command({ name: 'help', channelId: world.discord.channels.general, author: 'ada' });
    expect(help.content).toContain(hint);
    expect(help.content).not.toContain('**web_search**');
  });

  it('/settings tools switches web_search off in a channel: not offered there, "off here" in /help', async () => {
    provider = await startFakeSearxng();
    const tools = buildToolRegistry([
      ...builtInTools,
      ...webTools({ webSearch: { provider: 'searxng', endpoint: provider.url, apiKey: null } }),
    ]);
    world = await start({ tools });
    const { discord } = world;
    const off = await settings('tools', discord.channels.general, { name: 'web_search', enabled: false });
    expect(off.content).toBe('**web_search** is off for this channel and its threads.');

    const general = await ask(discord.channels.general, 'news?');
    await ask(discord.channels.random, 'news too?');
    const [inGeneral, inRandom] = world.model.requests;
    expect(offered(inGeneral)).not.toContain('web_search');
    expect(offered(inRandom)).toContain('web_search');

    const help = await command({ name: 'help', channelId: general.id, author: 'bob' });
    expect(help.content).toContain('- **web_search** (off here): Search the web (SearXNG)');
    expect(help.content).not.toContain(hint);
  });
});
