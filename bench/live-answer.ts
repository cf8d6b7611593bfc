/**
 * `npm run bench:live`: how soon an answer is seen, streamed (STREAM_ANSWERS=on) or posted whole
 * (off), with a model that writes at about 50 tokens a second (the fake model server streams the
 * answer's JSON 7 characters every 35 ms), through the real bot, discord.js and the fake Discord.
 * For each question: from the question to the first answer text visible in the thread, and to the
 * whole answer; the model's own time to its first answer token; the REST calls and edits the
 * answer took, and the edits per second of each message.
 */
import { type BotWorld, mentionOf, startBotWorld } from '../test/support/bot-harness.ts';
import { answer } from '../test/support/model-servers/brain.ts';
import { type FakeModelServer, startFakeModelServer } from '../test/support/fake-model.ts';
import { compliant } from '../test/support/model-servers/quirks.ts';
import { renderAnswer } from '../src/posts/render.ts';
import { sized } from './smoke.ts';

const rounds = Number(process.env.ROUNDS ?? sized(5, 1));
const text = `${'The answer comes in parts. '.repeat(4)}${'Each sentence adds a little more to what was said before it, '.repeat(8)}That is all.`;
const whole = renderAnswer({ answer: text, tools_used: [] });
/** The stream's chunk that carries the answer's first characters: role, call head, `{"answe`, `r":"…`. */
const firstAnswerChunk = 3;

interface Sample {
  firstVisibleMs: number;
  wholeMs: number;
  modelFirstTokenMs: number;
  restCalls: number;
  edits: number;
  messages: number;
  editsPerSecond: number;
}

async function measure(streamAnswers: boolean): Promise<Sample[]> {
  let firstTokenAt = 0;
  const server: FakeModelServer = await startFakeModelServer(compliant, {
    streamChunkDelayMs: 35,
    onStreamChunk: (index) => {
      if (index === firstAnswerChunk) firstTokenAt = performance.now();
    },
  });
  // The harness's model client streams only when the bot asks for it (STREAM_ANSWERS).
  const world: BotWorld = await startBotWorld(
    { streamAnswers, toolPosts: 'off' },
    {},
    { baseURL: server.baseURL, provider: 'openai' },
  );
  const samples: Sample[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // Posted whole, the model is not asked to stream: it writes at the same pace all the same.
      server.enqueue(answer(text));
      firstTokenAt = 0;
      const { discord } = world;
      const asked = await discord.userSays({
        channelId: discord.channels.general,
        author: 'ada',
        content: `${mentionOf(world)} question ${round}`,
        mentions: [discord.botUser.id],
      });
      const t0 = performance.now();
      await world.handled('message', asked.id);
      const thread = discord.threads().find((candidate) => candidate.id === asked.id)!;
      const calls = discord.requests.filter(
        (request) =>
          request.time >= t0 && request.path.startsWith(`/channels/${thread.id}/messages`) && request.method !== 'GET',
      );
      const posts = calls.filter((request) => request.method === 'POST');
      const edits = calls.filter((request) => request.method === 'PATCH');
      const last = calls.at(-1)!;
      if (
        discord
          .botMessages(thread.id)
          .map((message) => message.content)
          .join('') !== whole
      )
        throw new Error('the answer shown is not the whole answer');
      samples.push({
        firstVisibleMs: posts[0]!.time - t0,
        wholeMs: last.time - t0,
        // Not seen when the reply is not streamed.
        modelFirstTokenMs: firstTokenAt === 0 ? Number.NaN : firstTokenAt - t0,
        restCalls: calls.length,
        edits: edits.length,
        messages: posts.length,
        editsPerSecond: edits.length / Math.max(0.001, (last.time - posts[0]!.time) / 1000),
      });
    }
  } finally {
    await world.close();
    await server.close();
  }
  return samples;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: string[] = [];
for (const streamAnswers of [true, false]) {
  const samples = await measure(streamAnswers);
  const m = (key: keyof Sample) => median(samples.map((sample) => sample[key]));
  const ms = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(0));
  rows.push(
    `| ${streamAnswers ? 'on' : 'off'} | ${ms(m('modelFirstTokenMs'))} | ${ms(m('firstVisibleMs'))} | ${ms(m('firstVisibleMs') - m('modelFirstTokenMs'))} | ${m('wholeMs').toFixed(0)} | ${m('messages')} | ${m('edits')} | ${m('editsPerSecond').toFixed(2)} | ${m('restCalls')} |`,
  );
}
console.log(`Node ${process.version}; ${rounds} questions each; the answer is ${text.length} characters.\n`);
console.log(
  '| STREAM_ANSWERS | model: first answer token, ms | first text visible, ms | visible after the first token, ms | whole answer shown, ms | messages | edits | edits per second | REST calls |',
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const row of rows) console.log(row);
process.exit(0);
