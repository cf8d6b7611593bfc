/**
 * The images a run's tools return for people, in the thread: posted after the turn's tool post, and
 * checked first where the place checks content, as an answer is (the review of issue 37's MCP 5).
 */
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { buildToolRegistry } from '../../../src/agent/tool-registry.ts';
import type { ResultWithImages } from '../../../src/agent/tool-images.ts';
import { defineTool } from '../../../tools/define-tool.ts';
import { type BotWorld, askInGeneral, startBotWorld, waitForBotPosts } from '../../support/bot-harness.ts';
import { type FakeContentCheck, moderationsAt, startFakeContentCheck } from '../../support/fake-content-check.ts';
import { finalAnswer, toolCalls } from '../../support/fake-model.ts';
import { dataUrlOf, png } from '../../support/images.ts';

let world: BotWorld | undefined;
let check: FakeContentCheck | undefined;
afterEach(async () => {
  await world?.close();
  await check?.close();
  world = check = undefined;
});

/** A tool that draws two pictures for the person: the first is what the content check flags. */
const drawn = [png(5, 5), png(6, 6)];
const draw = defineTool({
  name: 'draw',
  description: 'Draws pictures for the person.',
  parameters: z.object({}),
  execute: (): ResultWithImages => ({
    type: 'result-with-images',
    text: 'two pictures',
    images: drawn.map((bytes, index) => ({
      mediaType: 'image/png',
      base64: bytes.toString('base64'),
      width: 5 + index,
      height: 5 + index,
      audience: 'people' as const,
    })),
  }),
});

async function start(flagFirst: boolean) {
  check = await startFakeContentCheck();
  if (flagFirst) check.flaggedImages.add(dataUrlOf('image/png', drawn[0]!));
  world = await startBotWorld(
    {},
    {},
    {},
    {
      tools: buildToolRegistry([draw]),
      contentCheck: moderationsAt(check),
    },
  );
  world.model.enqueue(toolCalls({ name: 'draw', arguments: {} }), finalAnswer('Here they are.'));
  const { thread } = await askInGeneral(world, 'draw me something');
  return waitForBotPosts(world, thread.id, 3);
}

it('are checked before they are posted: held back, a line says so and the answer follows', async () => {
  const [toolPost, held, answer] = await start(true);
  expect(toolPost!.content).toContain('draw');
  expect(held!.attachments).toEqual([]);
  expect(held!.content).toBe('-# 2 images returned but not posted: the content check held them back.');
  expect(answer!.content).toContain('Here they are.');
  // Recorded as a flag of the run's answer, as a held answer's words are.
  const flags = world!.store.db.prepare('SELECT target FROM content_flags').all();
  expect(flags).toEqual([{ target: 'answer' }]);
});

it('are posted when the check lets them through', async () => {
  const [, images] = await start(false);
  expect(images!.attachments.map((file) => file.filename)).toEqual(['image-1.png', 'image-2.png']);
});
