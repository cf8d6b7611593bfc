/**
 * /forget-me and the copies of a member's words that others' runs made (issue 37): a search of the
 * conversation quoting them in another member's run (its step log and the memory's tool message),
 * and the memory summaries that quote them (the summary runs' step logs). After the forget, the
 * member's word is nowhere in the database file or its WAL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { type ChatRequest, finalAnswer, type ScriptedReply, toolCalls } from '../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world?.close();
});

const codeword = 'HELIOTROPE';
const isSummaryCall = (request: ChatRequest) => JSON.stringify(request.tool_choice ?? null).includes('write_summary');
/** A summary that keeps what was said of the codeword, as a good model would. */
const summaryOf = (request: ChatRequest): ScriptedReply =>
  toolCalls({
    name: 'write_summary',
    arguments: {
      summary: JSON.stringify(request.messages).includes(codeword)
        ? `Bob said his codeword is ${codeword}.`
        : 'Small talk only.',
    },
  });

function bytesOnDisk(path: string): string {
  const wal = `${path}-wal`;
  return Buffer.concat([readFileSync(path), existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0)])
    .toString('latin1')
    .toLowerCase();
}

it("takes the member's words out of others' step logs, the memory's search results and the summaries", async () => {
  world = await startBotWorld({}, {}, {}, { databaseTools: true, memory: { tokenBudget: 300, messageTokenCap: 100 } });
  const { discord, model, store } = world;
  let searched = false;
  // Ada's first run searches the conversation (quoting Bob); everything else is a summary or a plain answer.
  model.otherwise((request) => {
    if (isSummaryCall(request)) return summaryOf(request);
    if (!searched && JSON.stringify(request.messages).includes('what did bob say')) {
      searched = true;
      return toolCalls({ name: 'search_conversation', arguments: { query: 'codeword', limit: null } });
    }
    return finalAnswer('Noted.');
  });
  const { asked, thread } = await askInGeneral(world, `my codeword is ${codeword}, keep it safe`, 'bob');
  await world.handled('message', asked.id);
  const ada = async (content: string) => {
    const said = await discord.userSays({ channelId: thread.id, author: 'ada', content });
    await world.handled('message', said.id);
  };
  await ada('what did bob say about his codeword?');
  for (let index = 1; index <= 16; index++) await ada(`message ${index}: nothing much to say about the weather today`);
  await world.bot.queues.idle();
  expect(bytesOnDisk(world.databasePath)).toContain(codeword.toLowerCase());
  const stepsQuoting = () =>
    (
      store.db.prepare('SELECT result, message FROM steps').all() as { result: string | null; message: string | null }[]
    ).filter((step) => `${step.result}${step.message}`.includes(codeword)).length;
  expect(stepsQuoting()).toBeGreaterThan(1); // the search's result, and summary runs'

  const forgot = await discord.userRunsCommand({
    name: 'forget-me',
    author: 'bob',
    channelId: thread.id,
    options: { confirm: true },
  });
  expect((await forgot.waitForReply()).content).toMatch(/Deleted for good/);

  expect(stepsQuoting()).toBe(0);
  expect(store.db.prepare('SELECT count(*) FROM memory_summaries').pluck().get()).toBe(0);
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  expect(bytesOnDisk(world.databasePath)).not.toContain(codeword.toLowerCase());
  // Ada's conversation goes on, without him: the next answer is made from what is left.
  model.otherwise(() => finalAnswer('Still here.'));
  const before = discord.botMessages(thread.id).length;
  await ada('are you there?');
  expect((await waitForBotPosts(world, thread.id, before + 1)).at(-1)!.content).toBe('Still here.');
});
