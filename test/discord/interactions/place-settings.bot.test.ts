/**
 * Each place its own bot: moderators set a persona, a model and the tools per channel or server
 * (`/settings`), a conversation's starter picks its model (`/model`); threads inherit from their
 * channel, channels from the server, the server from the operator. End to end: the real client
 * against the fake Discord, the real openai client against scripted model servers.
 */
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BotWorld } from '../../support/bot-harness.ts';
import { runScript } from '../../support/run-process.ts';
import { ask, command, offered, sayIn, settings, start, systemPrompt } from '../../support/place-settings-world.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
  world = undefined as unknown as BotWorld;
});

describe('/settings persona', () => {
  it("reaches that channel's new threads and not another's; members are refused and nothing changes", async () => {
    world = await start();
    const { discord } = world;
    const refused = await settings('persona', discord.channels.general, { text: 'Talk like a pirate.' }, 'bob');
    expect(refused).toMatchObject({ ephemeral: true, content: 'This command is for moderators.' });
    expect(world.store.placeSettings.recent(null)).toEqual([]);

    const set = await settings('persona', discord.channels.general, { text: 'Talk like a pirate.' });
    expect(set).toMatchObject({ ephemeral: true, content: 'Persona set for this channel and its threads.' });

    await ask(discord.channels.general, 'hello there');
    await ask(discord.channels.random, 'hello elsewhere');
    const [inGeneral, inRandom] = world.model.requests;
    expect(systemPrompt(inGeneral)).toContain('Talk like a pirate.');
    // Added to the operator's prompt and the bot's rules, which stay.
    expect(systemPrompt(inGeneral)).toContain('You are a helpful, concise assistant.');
    expect(systemPrompt(inGeneral)).toContain('call final_answer');
    expect(systemPrompt(inRandom)).not.toContain('pirate');

    // The step log says which persona (by version) and which model each run used.
    const change = world.store.placeSettings.recent(null)[0]!;
    expect(world.store.runs.recent(null, 2).map((run) => [run.persona_version, run.model_name])).toEqual([
      [null, 'test-model'],
      [change.id, 'test-model'],
    ]);

    // npm run steps: who changed what, where and when; and each run's persona version.
    const env = { DATABASE_PATH: world.databasePath };
    const changes = await runScript('src/steps.ts', { cwd: dirname(world.databasePath), args: ['--settings'], env });
    expect(changes.stdout).toMatch(
      new RegExp(
        `^#${change.id} 100000000000000001: persona v${change.id} "Talk like a pirate\\." for the channel 100000000000000010 by Ada \\(200000000000000001\\), \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}\\n$`,
      ),
    );
    const runId = world.store.runs.recent(null, 2)[1]!.id;
    const detail = await runScript('src/steps.ts', { cwd: dirname(world.databasePath), args: ['--run', runId], env });
    expect(detail.stdout).toMatch(new RegExp(`\\npersona +v${change.id}\\n`));
  });

  it('server scope reaches every channel; a thread inherits its channel; reset brings the server back', async () => {
    world = await start();
    const { discord } = world;
    await settings('persona', discord.channels.general, { text: 'Server persona.', scope: 'server' });
    const thread = await ask(discord.channels.general, 'first');
    await ask(discord.channels.random, 'second');
    expect(world.model.requests.map(systemPrompt).every((prompt) => prompt.includes('Server persona.'))).toBe(true);

    // Set from inside the thread, for its channel: the thread's next run has it, not the server's.
    const set = await settings('persona', thread.id, { text: 'Channel persona.' });
    expect(set.content).toBe('Persona set for this channel and its threads.');
    await sayIn(thread.id, 'and now?');
    const inThread = systemPrompt(world.model.requests.at(-1));
    expect(inThread).toContain('Channel persona.');
    expect(inThread).not.toContain('Server persona.');

    const shown = await settings('show', thread.id);
    expect(shown.ephemeral).toBe(true);
    expect(shown.content).toMatch(
      /Persona v\d+ \(set for the channel <#100000000000000010> by Ada, <t:\d+:R>\): "Channel persona\."/,
    );
    expect(shown.content).toContain("- Model: **test-model** (the operator's default)");
    expect(shown.content).toMatch(/- persona v\d+ "Server persona\." for the server by Ada, <t:\d+:R>/);

    const reset = await settings('reset', thread.id);
    expect(reset.content).toBe('Cleared 1 setting of this channel and its threads: it inherits them again.');
    await sayIn(thread.id, 'and after the reset?');
    expect(systemPrompt(world.model.requests.at(-1))).toContain('Server persona.');
  });

  it('a long persona through a form; an empty form clears it; settings survive a restart', async () => {
    world = await start();
    const { discord } = world;
    const opened = await world.discord.userRunsCommand({
      name: 'settings',
      subcommand: 'persona',
      author: 'ada',
      channelId: discord.channels.general,
    });
    const form = await opened.waitForModal();
    expect(form.components.flatMap((row) => row.components.map((input) => input.custom_id))).toEqual([
      'persona',
      'persona-more',
    ]);
    const long = `${'A'.repeat(3990)} middle ${'B'.repeat(1000)}`;
    const submitted = await discord.userSubmitsModal(opened, {
      persona: long.slice(0, 4000),
      'persona-more': long.slice(4000),
    });
    expect(await submitted.waitForReply()).toMatchObject({
      ephemeral: true,
      content: 'Persona set for this channel and its threads.',
    });

    await world.restart();
    await ask(discord.channels.general, 'after a restart');
    expect(systemPrompt(world.model.requests.at(-1))).toContain(long);

    const again = await world.discord.userRunsCommand({
      name: 'settings',
      subcommand: 'persona',
      author: 'ada',
      channelId: discord.channels.general,
    });
    // The form shows the persona in effect, to edit.
    expect((await again.waitForModal()).components[1]!.components[0]!.value).toBe(long.slice(4000));
    const cleared = await discord.userSubmitsModal(again, {});
    expect((await cleared.waitForReply()).content).toBe('Persona cleared for this channel and its threads.');
    await ask(discord.channels.general, 'and without it');
    expect(systemPrompt(world.model.requests.at(-1))).not.toContain('AAAA');

    // A channel's form shows the channel's own persona only, never the server's it inherits.
    await settings('persona', discord.channels.random, { text: 'Speak like a sailor.', scope: 'server' });
    const channelForm = await world.discord.userRunsCommand({
      name: 'settings',
      subcommand: 'persona',
      author: 'ada',
      channelId: discord.channels.random,
    });
    expect((await channelForm.waitForModal()).components[0]!.components[0]!.value).toBeUndefined();
    await discord.userSubmitsModal(channelForm, {});
    expect(world.store.placeSettings.at('server', discord.guildId)).toMatchObject([
      { key: 'persona', value: 'Speak like a sailor.' },
    ]);

    // A deleted channel takes what its moderators set there with it.
    await discord.deleteChannel(discord.channels.general);
    await world.handled('channel-deletion', discord.channels.general);
    expect(world.store.placeSettings.at('channel', discord.channels.general)).toEqual([]);
  });
});

describe('/settings tools', () => {
  it('a tool switched off in a channel is neither offered to the model nor run by /tool there', async () => {
    world = await start();
    const { discord } = world;
    const off = await settings('tools', discord.channels.general, { name: 'calculator', enabled: false });
    expect(off.content).toBe('**calculator** is off for this channel and its threads.');
    const suggestions = await world.discord.userRunsCommand({
      name: 'settings',
      subcommand: 'tools',
      author: 'ada',
      channelId: discord.channels.general,
      options: { name: 'calc' },
      focused: 'name',
    });
    expect(await suggestions.waitForChoices()).toEqual([{ name: 'calculator', value: 'calculator' }]);
    const unknown = await settings('tools', discord.channels.general, { name: 'teleport', enabled: false });
    expect(unknown.content).toBe('I have no tool or MCP server named "teleport".');

    const general = await ask(discord.channels.general, 'count');
    const random = await ask(discord.channels.random, 'count too');
    const [inGeneral, inRandom] = world.model.requests;
    expect(offered(inGeneral)).not.toContain('calculator');
    expect(offered(inGeneral)).toContain('current_time');
    expect(offered(inRandom)).toContain('calculator');

    const refused = await command({
      name: 'tool',
      subcommand: 'calculator',
      options: { expression: '1+1' },
      channelId: general.id,
    });
    expect(refused).toMatchObject({
      ephemeral: true,
      content: 'The moderators have switched **calculator** off here.',
    });
    const allowed = await command({
      name: 'tool',
      subcommand: 'calculator',
      options: { expression: '1+1' },
      channelId: random.id,
    });
    expect(allowed).toMatchObject({ ephemeral: false, content: '🔧 **calculator** `{"expression":"1+1"}` → `2`' });
    const help = await command({ name: 'help', channelId: general.id, author: 'bob' });
    expect(help.content).toContain('- **calculator** (off here): ');

    // Switched on again for the channel (after off for the server): the nearest switch decides.
    await settings('tools', discord.channels.random, { name: 'calculator', enabled: false, scope: 'server' });
    await settings('tools', discord.channels.general, { name: 'calculator', enabled: true });
    await sayIn(general.id, 'count again');
    await sayIn(random.id, 'count again');
    const [again, randomAgain] = world.model.requests.slice(-2);
    expect(offered(again)).toContain('calculator');
    expect(offered(randomAgain)).not.toContain('calculator');
  });
});
