/**
 * The shape of the house (ARCHITECTURE.md, "Invariants"), checked by dependency-cruiser in
 * `npm test`. Type-only imports count as edges too (tsPreCompilationDeps): they make no cycle at
 * run time, but they tie the files' meanings together all the same, and a cycle of types is one
 * refactor away from a runtime one. TypeScript 7 has no JavaScript API, so swc parses.
 */
/** The leaf helpers: they depend on nothing of the project, and every part may use them. */
const leaves = '^src/(text|streams)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycle anywhere: the bot, its tests and its benches.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'leaves-stand-alone',
      comment: 'src/text and src/streams import nothing of the project but each other, and no package.',
      severity: 'error',
      from: { path: leaves },
      to: { pathNot: [leaves, '^node:'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'agent-core-is-pure',
      comment:
        'The agent loop (src/agent) imports only itself and the leaf helpers: no Discord, no database, no model server (ARCHITECTURE.md, "Invariants").',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { pathNot: ['^src/agent/', leaves], dependencyTypesNot: ['core', 'npm', 'npm-dev'] },
    },
    {
      name: 'agent-core-knows-no-edge-package',
      comment: 'The agent loop imports neither discord.js, better-sqlite3 nor openai.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: 'node_modules/(discord\\.js|@discordjs/|better-sqlite3|openai)' },
    },
    {
      name: 'discord-js-at-the-discord-edge',
      comment:
        'discord.js is imported by the Discord side (src/discord, commands) and the processes that start it (main, deploy-commands, the shard manager) only.',
      severity: 'error',
      from: {
        path: '^(src|tools|db)/',
        pathNot: ['^src/discord/', '^src/shards/shard-manager\\.ts$', '^src/main\\.ts$', '^src/deploy-commands\\.ts$'],
      },
      to: { path: 'node_modules/(discord\\.js|@discordjs/)' },
    },
    {
      name: 'discord-free-stages',
      comment:
        'The run pipeline (src/conversation), what applies in a place (src/place-settings) and the text of posts (src/posts) know nothing of Discord: the terminal chat runs them too.',
      severity: 'error',
      from: { path: '^src/(conversation|place-settings|posts)/' },
      to: { path: ['^src/discord/', 'node_modules/(discord\\.js|@discordjs/)'] },
    },
    {
      name: 'sqlite-in-db-only',
      comment: 'better-sqlite3 is opened and queried in db/ alone; the rest takes the Store.',
      severity: 'error',
      from: { path: '^(src|commands|tools)/' },
      to: { path: 'node_modules/better-sqlite3' },
    },
    {
      name: 'openai-in-one-file',
      comment:
        'One adapter speaks to model servers through the openai client: src/model-servers/openai-transport.ts. (The benches compare other agent loops on the same client: they are not the bot.)',
      severity: 'error',
      from: { path: '^(src|commands|tools|db)/', pathNot: '^src/model-servers/openai-transport\\.ts$' },
      to: { path: 'node_modules/openai/' },
    },
    {
      name: 'opentelemetry-in-telemetry-only',
      comment:
        'The OpenTelemetry SDK is loaded only when an OTLP endpoint is set: src/telemetry/ imports it, behind the dynamic import of start-telemetry.ts.',
      severity: 'error',
      from: { path: '^(src|commands|tools|db)/', pathNot: '^src/telemetry/' },
      to: { path: 'node_modules/@opentelemetry/' },
    },
    {
      name: 'the-wiring-is-the-top',
      comment:
        'src/app puts the bot together (the services, from the settings of src/settings): the entry files (src/*.ts) and the benches use it; nothing below it imports it, so that no stage depends on how the bot is assembled.',
      severity: 'error',
      from: { path: '^(src/[^/]+/|commands/|tools/|db/)', pathNot: '^src/app/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'run-checks-sit-in-their-seats',
      comment:
        'A run\'s checks before the model and before posting are entries of its seats (src/discord/runs/before-model.ts, before-post.ts), not of the paths that run it: the questions\' content check and the wait for forgets are reached through the seat alone (ARCHITECTURE.md, "Seats on the run path").',
      severity: 'error',
      from: {
        path: '^(src|commands)/',
        pathNot: [
          '^src/discord/runs/before-model\\.ts$',
          '^src/discord/bot-services\\.ts$',
          '^src/app/bot-services\\.ts$',
        ],
      },
      to: { path: ['^src/discord/runs/message-check\\.ts$', '^src/conversation/forgets\\.ts$'] },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every relative import names a file that exists.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  required: [
    {
      name: 'the-discord-edge-speaks-discord',
      comment:
        'A file under src/discord speaks Discord: it imports discord.js, directly or through the files of the edge whose Discord types or posting it uses (a message to reply to, noPings, the services). A file that reaches no discord.js belongs to a Discord-free stage (ARCHITECTURE.md).',
      severity: 'error',
      module: { path: '^src/discord/' },
      to: { path: 'node_modules/(discord\\.js|@discordjs/)', reachable: true },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^bench/frameworks\\.ts$', '^bench/node_modules/', '^dist/'] },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
