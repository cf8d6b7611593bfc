/**
 * `npm run container:check`: the Dockerfile's steps run without a container engine (none runs on
 * the machines we build on), and checked. The Dockerfile itself is read, so the steps are its own:
 *
 * - the build stage: each `COPY` from the repository into a build folder, each `RUN` there (the
 *   apt-get line is left out: this machine has python3, make and g++ already);
 * - the runtime stage: each `COPY --from=build` into a runtime folder, the `/data` volume as a
 *   folder of its own owned by the unprivileged user (`nobody` here, `node` in the image);
 * - then the image's `CMD` is started as that user, in the runtime folder, against the fake Discord
 *   and a scripted model: it must get ready, pass the `HEALTHCHECK`, answer a question, stop with
 *   exit code 0 on SIGTERM, and leave the health check failing. The runtime folder must hold no
 *   compiler, no tsx, and none of the packages bundled into dist/.
 *
 *   npm run container:check
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { optionalPackages } from '../../scripts/compile-options.mjs';
import { packagesLoadedBy } from '../support/compiled-packages.ts';
import { startFakeDiscord } from '../support/fake-discord.ts';
import { projectRoot } from '../support/run-process.ts';
import { finalAnswer, startScriptedModel } from '../support/fake-model.ts';
import { waitUntil } from '../support/wait-until.ts';

interface Instruction {
  name: string;
  args: string;
}

/** The Dockerfile's instructions, stage by stage (continued lines joined, comments left out). */
function stages(dockerfile: string): Instruction[][] {
  const lines = dockerfile.replace(/\\\n/g, ' ').split('\n');
  const result: Instruction[][] = [];
  for (const line of lines.map((text) => text.trim()).filter((text) => text && !text.startsWith('#'))) {
    const [name, ...rest] = line.split(/\s+/);
    if (name === 'FROM') result.push([]);
    result.at(-1)?.push({ name: name!, args: rest.join(' ') });
  }
  return result;
}

const checks: string[] = [];
const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`container steps: ${what}: FAILED`);
  checks.push(`ok: ${what}`);
};
const run = (command: string, cwd: string) => {
  console.log(`  $ ${command}`);
  execFileSync('sh', ['-c', command], { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
};

const [buildStage, runtimeStage] = stages(readFileSync(join(projectRoot, 'Dockerfile'), 'utf8'));
if (!buildStage || !runtimeStage) throw new Error('the Dockerfile should have a build stage and a runtime stage');
const work = mkdtempSync(join(tmpdir(), 'container-steps-'));
// mkdtemp makes the folder 0700: the unprivileged user must be able to reach the runtime folder.
chmodSync(work, 0o755);
const build = join(work, 'build');
const runtime = join(work, 'runtime');
const data = join(work, 'data');
mkdirSync(build);
mkdirSync(runtime);

console.log('build stage:');
for (const { name, args } of buildStage) {
  if (name === 'COPY') {
    // `COPY a b ./` copies each into the folder; `COPY src ./src` copies one to its name.
    const paths = args.split(/\s+/);
    const to = paths.pop()!;
    console.log(`  COPY ${paths.join(' ')} ${to}`);
    for (const path of paths)
      cpSync(join(projectRoot, path), to.endsWith('/') ? join(build, to, path) : join(build, to), { recursive: true });
  } else if (name === 'RUN' && args.includes('apt-get')) console.log('  (apt-get left out: the tools are here)');
  else if (name === 'RUN') run(args, build);
}
check(existsSync(join(build, 'dist/main.js')), 'the build stage compiled dist/main.js');

console.log('runtime stage:');
const user = userInfo().uid === 0 ? { uid: 65534, gid: 65534, name: 'nobody' } : null;
let command: string[] = [];
let healthCommand: string[] = [];
for (const { name, args } of runtimeStage) {
  if (name === 'COPY') {
    const [, from, to] = /^--from=build\s+\/app\/(\S+)\s+(\S+)$/.exec(args) ?? [];
    if (!from) throw new Error(`runtime stage: a COPY this script does not know: ${args}`);
    console.log(`  COPY --from=build ${from} ${to}`);
    cpSync(join(build, from), join(runtime, from), { recursive: true });
  } else if (name === 'RUN' && args.includes('/data')) {
    mkdirSync(data);
    if (user) execFileSync('chown', [`${user.uid}:${user.gid}`, data]);
    if (args.includes('ln -s /data /app/data')) symlinkSync(data, join(runtime, 'data'));
  } else if (name === 'CMD') command = JSON.parse(args) as string[];
  else if (name === 'HEALTHCHECK') healthCommand = JSON.parse(args.slice(args.indexOf('CMD') + 3)) as string[];
}
for (const unwanted of ['typescript', 'tsx', 'esbuild', 'discord.js', 'openai', 'pino', 'gpt-tokenizer', 'zod'])
  check(!existsSync(join(runtime, 'node_modules', unwanted)), `the runtime holds no ${unwanted}`);
for (const name of packagesLoadedBy(join(runtime, 'dist')).filter((name) => !optionalPackages.includes(name)))
  check(existsSync(join(runtime, 'node_modules', name)), `the runtime holds ${name}, which dist/ loads`);
const mib = (path: string) => Number(execFileSync('du', ['-sk', path]).toString().split('\t')[0]) / 1024;
console.log(
  `  runtime: node_modules ${mib(join(runtime, 'node_modules')).toFixed(1)} MiB, dist ${mib(join(runtime, 'dist')).toFixed(1)} MiB`,
);

console.log(`the image's CMD as ${user?.name ?? 'this user'}: ${command.join(' ')}`);
const discord = await startFakeDiscord();
const model = await startScriptedModel();
// As `docker run --env-file .env` passes a .env copied from .env.example: every setting there, blank.
const blankSettings = Object.fromEntries(
  [...readFileSync(join(projectRoot, '.env.example'), 'utf8').matchAll(/^([A-Z_]+)=\s*$/gm)].map(([, name]) => [
    name!,
    '',
  ]),
);
const env = {
  ...blankSettings,
  PATH: process.env.PATH ?? '',
  HOME: data,
  NODE_ENV: 'production',
  DISCORD_TOKEN: discord.token,
  DISCORD_API_URL: discord.apiUrl,
  OPENAI_BASE_URL: model.baseURL,
  OPENAI_API_KEY: 'container-check',
};
const health = () => {
  try {
    execFileSync(healthCommand[0]!, healthCommand.slice(1), { cwd: runtime, env, ...user, stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};
const bot = spawn(command[0]!, command.slice(1), { cwd: runtime, env, ...user, stdio: ['ignore', 'pipe', 'inherit'] });
let stdout = '';
bot.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
const exited = new Promise<number | null>((resolve) => bot.on('close', resolve));
try {
  await waitUntil(() => stdout.includes('"msg":"ready"'), 'the bot ready');
  check(
    existsSync(join(data, 'bot.sqlite')),
    `the bot got ready as ${user?.name ?? 'this user'}, with the settings of .env.example left blank, its database on the volume`,
  );
  check(health(), 'the HEALTHCHECK passes once ready');
  check(stdout.includes('"codeCache":"used"'), "the packages' code came from the code cache the build stage made");
  model.enqueue(finalAnswer('Hello from the container.'));
  await discord.userSays({
    channelId: discord.channels.general,
    author: 'ada',
    content: `<@${discord.botUser.id}> hello`,
    mentions: [discord.botUser.id],
  });
  await waitUntil(
    () => discord.botMessages().some((message) => message.content === 'Hello from the container.'),
    'the answer',
  );
  check(true, 'it answers a question in a thread');
  const stopAt = Date.now();
  bot.kill('SIGTERM');
  const code = await exited;
  check(code === 0, `SIGTERM stops it with exit code 0 (${code}, ${Date.now() - stopAt} ms)`);
  check(!health(), 'the HEALTHCHECK fails once it has stopped');
} finally {
  if (bot.exitCode === null && bot.signalCode === null) bot.kill('SIGKILL');
  await discord.close();
  await model.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(`\n${checks.join('\n')}`);
