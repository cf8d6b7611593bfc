/**
 * A long MCP tool's progress shown in the thread while it runs, through the bot: the test server's
 * `slow` tool tells its progress after each step; the bot posts a progress line, edits it at most
 * once a second, and edits it into the turn's tool post at the end.
 */
import { describe, expect, it } from 'vitest';
import { askInGeneral } from '../../support/bot-harness.ts';
import { finalAnswer, toolCalls } from '../../support/fake-model.ts';
import { testServerConfig } from '../../support/mcp-test-server.ts';
import { useMcpWorld } from '../../support/mcp-world.ts';

const mcp = useMcpWorld();

const progressLine = /^🔧 \*\*test__slow\*\* … (\d+)% \(step \d of 5\)$/;

describe('a long MCP tool in a thread', () => {
  it('shows its progress, edited at most once a second, then its tool post in the same message', async () => {
    const w = await mcp.start(testServerConfig('test'));
    const args = { steps: 5, stepMs: 700 };
    w.model.enqueue(toolCalls({ name: 'test__slow', arguments: args }), finalAnswer('It is done.', ['test__slow']));
    const { asked, thread } = await askInGeneral(w, 'run the slow tool');

    const progress = await w.discord.waitFor(
      () => w.discord.botMessages(thread.id).find((message) => progressLine.test(message.content)),
      { what: 'a progress line', timeoutMs: 10_000 },
    );
    await w.handled('message', asked.id);

    const turnPost = `🔧 **test__slow** \`${JSON.stringify(args)}\` → \`5 steps done (progressToken sent)\``;
    const posts = w.discord.botMessages(thread.id);
    expect(posts.map((post) => post.content)).toEqual([turnPost, 'It is done.\n-# 🔧 test__slow']);
    // The progress message became the tool post: posted once, then edited.
    expect(posts[0]!.id).toBe(progress.id);
    const toThread = (method: string) =>
      w.discord.requests.filter(
        (request) => request.method === method && request.path.startsWith(`/channels/${thread.id}/messages`),
      );
    expect(toThread('POST')).toHaveLength(2);
    const edits = toThread('PATCH').filter((request) => request.path.endsWith(`/${progress.id}`));
    const shown = [toThread('POST')[0]!, ...edits.slice(0, -1)];
    // Each progress line shown, a growing percentage, at most once a second (the last edit is the outcome).
    const percents = shown.map((request) =>
      Number(progressLine.exec((request.body as { content: string }).content)![1]),
    );
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    // Paced from each flush, seen here on arrival: a post held up on its way (a busy machine) narrows
    // the gap it leaves, so the bound sits between the tool's 700 ms steps (unpaced) and the 1 s pace.
    for (let index = 1; index < shown.length; index += 1)
      expect(shown[index]!.time - shown[index - 1]!.time).toBeGreaterThanOrEqual(900);
    expect((edits.at(-1)!.body as { content: string }).content).toBe(turnPost);
    expect(w.model.requests[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: '5 steps done (progressToken sent)',
    });
  });
});
