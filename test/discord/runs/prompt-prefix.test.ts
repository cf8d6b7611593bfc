/**
 * Read once (issue 39): a model server reuses what it read of the last prompt up to the first
 * change, so a follow-up's request must begin as the previous answer's did: the system message
 * (the day, not the time), the tools and the conversation as sent, byte for byte. With a
 * window that overflows, its start moves in steps, so most follow-ups still do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { askInGeneral, type BotWorld, startBotWorld } from '../../support/bot-harness.ts';
import { type ChatRequest, finalAnswer } from '../../support/fake-model.ts';

let world: BotWorld;
afterEach(async () => {
  await world.close();
});

/** Whether `next` sends the same tools and begins with all of `previous`'s messages. */
function beginsWith(next: ChatRequest, previous: ChatRequest): boolean {
  const before = previous.messages;
  return (
    JSON.stringify(next.tools) === JSON.stringify(previous.tools) &&
    next.messages.length > before.length &&
    JSON.stringify(next.messages.slice(0, before.length)) === JSON.stringify(before)
  );
}

/** Opens a thread and asks `followUps` more questions in it, each answered at once; the requests in order. */
async function thread(followUps: number): Promise<ChatRequest[]> {
  world.model.otherwise(() => finalAnswer('Noted, and here is a short answer about it.'));
  const { asked, thread } = await askInGeneral(world, 'remember this: the password is swordfish');
  await world.handled('message', asked.id);
  for (let index = 1; index <= followUps; index++) {
    const said = await world.discord.userSays({
      channelId: thread.id,
      author: 'ada',
      content: `question ${index}: what else should I know about the weather today?`,
    });
    await world.handled('message', said.id);
  }
  return world.model.requests;
}

describe('a follow-up begins with the previous request', () => {
  it('with the default window: every follow-up, the system message saying the day, not the time', async () => {
    world = await startBotWorld();
    const requests = await thread(5);
    expect(requests).toHaveLength(6);
    for (let index = 1; index < requests.length; index++)
      expect(beginsWith(requests[index]!, requests[index - 1]!), `follow-up ${index}`).toBe(true);
    const system = String(requests.at(-1)!.messages[0]!.content);
    expect(system).toMatch(/Today: \w+day, \d+ \w+ \d{4} \(UTC\)/);
    expect(system).not.toMatch(/\d{2}:\d{2}/);
  });

  it('when people take turns: the system message names them in the order they first spoke, not by who asks', async () => {
    world = await startBotWorld();
    world.model.otherwise(() => finalAnswer('Noted.'));
    const {
      asked,
      thread: { id },
    } = await askInGeneral(world, 'hello');
    await world.handled('message', asked.id);
    for (const author of ['bob', 'ada', 'bob'] as const) {
      const said = await world.discord.userSays({ channelId: id, author, content: `${author} again` });
      await world.handled('message', said.id);
    }
    const requests = world.model.requests;
    // Bob's first question adds him to the people named; from then on each request begins with the last.
    expect(beginsWith(requests[1]!, requests[0]!)).toBe(false);
    expect(beginsWith(requests[2]!, requests[1]!)).toBe(true);
    expect(beginsWith(requests[3]!, requests[2]!)).toBe(true);
    expect(String(requests[3]!.messages[0]!.content)).toContain('People in this conversation: "Ada", "Bob".');
  });

  it('with a window that overflows: its start moves in steps, so most follow-ups still begin with the previous request', async () => {
    world = await startBotWorld({}, {}, {}, { memory: { tokenBudget: 600, summaries: false } });
    const requests = await thread(30);
    const followUps = requests.slice(1).map((request, index) => beginsWith(request, requests[index]!));
    // The window did overflow: the first question is long gone from the last request (the thread keeps its name).
    expect(JSON.stringify(requests.at(-1)!.messages.slice(1))).not.toContain('swordfish');
    // 29 of 30 here; a start that moved with every message once the window overflowed made it 21.
    expect(followUps.filter(Boolean).length / followUps.length).toBeGreaterThanOrEqual(0.85);
  });
});
