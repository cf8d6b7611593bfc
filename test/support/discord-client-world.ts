/**
 * The fixture of a test that drives the real discord.js client against the fake Discord
 * (fake-discord.ts), without the bot: `login` starts a fake and a client logged in to it and
 * ready; after each test every client it made destroyed, then every fake closed (the client
 * before its fake, or it reconnects for ever).
 *
 *   const world = useDiscordClientWorld({ intents: [GatewayIntentBits.Guilds] });
 *   const { fake, client } = await world.login();
 *   const answered = onNextInteraction(client, (interaction) => ...);
 */
import { once } from 'node:events';
import { afterEach } from 'vitest';
import { Client, type ClientOptions, Events, GatewayIntentBits, type Interaction } from 'discord.js';
import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from './fake-discord.ts';

export interface DiscordClientWorld {
  /** A fake Discord of this test's own, closed after it. */
  startFake(options?: FakeDiscordOptions): Promise<FakeDiscord>;
  /** A client on `fake`'s REST, not logged in, with the world's options and then `options`; destroyed after the test. */
  newClient(fake: FakeDiscord, options?: Partial<ClientOptions>): Client;
  /** A fake started with `options` and a client logged in to it, once ready. */
  login(options?: FakeDiscordOptions, clientOptions?: Partial<ClientOptions>): Promise<LoggedIn>;
}

export interface LoggedIn {
  fake: FakeDiscord;
  client: Client;
}

/**
 * Registers the teardown (afterEach) in the file or describe block it is called in. `defaults`:
 * the clients' options (the guilds intent alone and no pings unless given).
 */
export function useDiscordClientWorld(defaults: Partial<ClientOptions> = {}): DiscordClientWorld {
  const clients: Client[] = [];
  const fakes: FakeDiscord[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.destroy();
    for (const fake of fakes.splice(0)) await fake.close();
  });
  const world: DiscordClientWorld = {
    async startFake(options = {}) {
      const fake = await startFakeDiscord(options);
      fakes.push(fake);
      return fake;
    },
    newClient(fake, options = {}) {
      const client = new Client({
        intents: [GatewayIntentBits.Guilds],
        allowedMentions: { parse: [], repliedUser: false },
        ...defaults,
        rest: { api: fake.apiUrl },
        ...options,
      });
      clients.push(client);
      return client;
    },
    async login(options = {}, clientOptions = {}) {
      const fake = await world.startFake(options);
      const client = world.newClient(fake, clientOptions);
      const ready = once(client, Events.ClientReady);
      await client.login(fake.token);
      await ready;
      return { fake, client };
    },
  };
  return world;
}

/** Runs `handler` on the client's next interaction and resolves with what it returned or threw. */
export function onNextInteraction<T>(client: Client, handler: (interaction: Interaction) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) =>
    client.once(Events.InteractionCreate, (interaction) => void handler(interaction).then(resolve, reject)),
  );
}
