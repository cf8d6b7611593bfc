/**
 * `final_answer`'s sources, checked in the agent loop: only URLs a tool of this run noted as shown
 * (a search result, a page read) are kept, compared loosely, listed as the tool gave them; a tool
 * that noted a URL and then failed showed nothing; the rest go to the step log as unverified.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkSources,
  knowledgeSource,
  knowledgeSourceTitle,
  noteSource,
  type SourceLedger,
} from '../../src/agent/checked-sources.ts';
import type { FinalAnswerEvent } from '../../src/agent/events.ts';
import { buildToolRegistry } from '../../src/agent/tool-registry.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { runOnce } from '../support/agent-harness.ts';
import { type ScriptedModel, startScriptedModel, toolCalls } from '../support/fake-model.ts';

describe('checking sources against what the tools showed', () => {
  const ledger: SourceLedger = new Map();
  for (const url of ['https://Example.org/a/', 'http://www.news.test/story?id=7', 'https://docs.test/page'])
    noteSource(ledger, url);

  it('keeps the URLs shown, compared loosely, as the tool gave them, each once', () => {
    expect(
      checkSources(
        [
          'https://example.org/a',
          'https://news.test/story?id=7#comments',
          'https://example.org/a/',
          'HTTPS://DOCS.TEST/page/',
        ],
        ledger,
      ),
    ).toEqual({
      checked: ['https://example.org/a/', 'http://www.news.test/story?id=7', 'https://docs.test/page'],
      unverified: [],
    });
  });

  it('drops what no tool showed: another page of the same site, another query, not a URL at all', () => {
    expect(
      checkSources(
        ['https://example.org/b', 'https://news.test/story?id=8', 'not a url', 'javascript:alert(1)'],
        ledger,
      ),
    ).toEqual({
      checked: [],
      unverified: ['https://example.org/b', 'https://news.test/story?id=8', 'not a url', 'javascript:alert(1)'],
    });
  });

  it('lists a URL percent-encoded, so that it cannot close the angle brackets of its link', () => {
    const odd: SourceLedger = new Map();
    noteSource(odd, 'https://odd.test/a>b c');
    expect(checkSources(['https://odd.test/a>b c'], odd).checked).toEqual(['https://odd.test/a%3Eb%20c']);
  });

  it('keeps a knowledge document shown (cited by its id), with its title; not another document', () => {
    const shown: SourceLedger = new Map();
    noteSource(shown, knowledgeSource(12, 'Rules > all #1'));
    const { checked, unverified } = checkSources(['knowledge:12', 'knowledge:13', 'knowledge:12#other'], shown);
    expect(checked).toEqual(['knowledge:12#Rules%20%3E%20all%20%231']);
    expect(unverified).toEqual(['knowledge:13']);
    expect(knowledgeSourceTitle(checked[0]!)).toBe('Rules > all #1');
    expect(knowledgeSourceTitle('https://example.org/')).toBeNull();
  });
});

describe('sources in a run', () => {
  let model: ScriptedModel;
  beforeEach(async () => {
    model = await startScriptedModel();
  });
  afterEach(async () => {
    await model.close();
  });

  /** A tool that notes the URL it is given, and fails when asked to. */
  const lookUp = defineTool({
    name: 'look_up',
    description: 'Shows a page.',
    parameters: z.object({ url: z.string(), fail: z.boolean() }),
    execute({ url, fail }, context) {
      context.noteSource?.(url);
      if (fail) throw new Error('the page could not be read');
      return `URL: ${url}`;
    },
  });

  it('keeps sources a tool of the run showed, not those of a call that failed nor made-up ones', async () => {
    model.enqueue(
      toolCalls(
        { name: 'look_up', arguments: { url: 'https://shown.test/page', fail: false } },
        { name: 'look_up', arguments: { url: 'https://failed.test/page', fail: true } },
      ),
      toolCalls({
        name: 'final_answer',
        arguments: {
          answer: 'Here.',
          tools_used: ['look_up'],
          sources: ['https://shown.test/page', 'https://failed.test/page', 'https://made-up.test/'],
        },
      }),
    );
    const run = await runOnce(model, { tools: buildToolRegistry([lookUp]) });
    expect(run.answer).toEqual({ answer: 'Here.', tools_used: ['look_up'], sources: ['https://shown.test/page'] });
    const event = run.events.find((candidate): candidate is FinalAnswerEvent => candidate.type === 'final-answer');
    expect(event?.unverifiedSources).toEqual(['https://failed.test/page', 'https://made-up.test/']);
  });

  it('sends final_answer with a strict schema that lists sources as required and nullable', async () => {
    model.enqueue(toolCalls({ name: 'final_answer', arguments: { answer: 'Hi.', tools_used: [], sources: null } }));
    const run = await runOnce(model);
    expect(run.answer).toEqual({ answer: 'Hi.', tools_used: [], sources: null });
    const spec = model.requests[0]!.tools!.find((tool) => tool.function.name === 'final_answer')!.function;
    expect(spec.strict).toBe(true);
    expect(spec.parameters.required).toEqual(['answer', 'tools_used', 'sources']);
  });
});
