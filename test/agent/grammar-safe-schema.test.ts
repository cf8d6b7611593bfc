/**
 * What a tool's schema looks like as the model is sent it (src/agent/grammar-safe-schema.ts), and
 * that the validator still holds every call to the whole schema: for zod tools (the built-ins,
 * final_answer) and for MCP tools after the bot's rewriting.
 */
import { describe, expect, it } from 'vitest';
import { finalAnswerTool } from '../../src/agent/final-answer.ts';
import { grammarSafeSchema } from '../../src/agent/grammar-safe-schema.ts';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import type { RuntimeTool } from '../../src/agent/tool.ts';
import { toolsFromListing } from '../../src/mcp/mcp-tools.ts';
import { fetchUrlTool } from '../../tools/fetch-url.ts';
import { remindMe } from '../../tools/remind-me.ts';

const sent = (tool: RuntimeTool) => tool.spec.function.parameters as { properties: Record<string, any> };
const remind = fromZodTool(remindMe({} as never));

describe('tool schemas as the model is sent them', () => {
  it("remind_me's `at` goes as a date-time without zod's pattern; a wrong date-time is still refused", () => {
    const at = sent(remind).properties.at;
    expect(JSON.stringify(at)).not.toContain('pattern');
    expect(at.anyOf[0]).toMatchObject({ type: 'string', format: 'date-time' });
    expect(JSON.stringify(remind.inputSchema)).toContain('"pattern"');
    expect(remind.validate({ text: 'stretch', in_minutes: null, at: 'tomorrow at noon' })).toEqual({
      ok: false,
      issues: ['at: Invalid ISO datetime'],
    });
    expect(remind.validate({ text: 'stretch', in_minutes: null, at: '2026-11-23T09:00:00+01:00' }).ok).toBe(true);
  });

  it("fetch_url's url and final_answer's sources go without maxLength 2048; a longer one is still refused", () => {
    const fetch = fromZodTool(fetchUrlTool());
    expect(sent(fetch).properties.url).toMatchObject({ type: 'string', minLength: 1 });
    expect(sent(fetch).properties.url).not.toHaveProperty('maxLength');
    const longUrl = `https://example.com/${'a'.repeat(2048)}`;
    expect(fetch.validate({ url: longUrl })).toMatchObject({
      ok: false,
      issues: [expect.stringMatching(/^url: Too big/)],
    });

    const sources = sent(finalAnswerTool).properties.sources.anyOf[0];
    expect(sources).toMatchObject({ type: 'array', maxItems: 20, items: { type: 'string' } });
    expect(sources.items).not.toHaveProperty('maxLength');
    expect(finalAnswerTool.validate({ answer: 'Hi.', tools_used: [], sources: [longUrl] }).ok).toBe(false);
    expect(finalAnswerTool.spec.function.strict).toBe(true);
  });

  it('leaves out only what an engine refuses: names and data that look like keywords stay', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^(?:a|b)$', maxLength: 10 },
        when: { type: 'string', format: 'date-time', minLength: 20, maxLength: 40 },
        link: { type: 'string', format: 'iri-reference' },
        mail: { type: 'string', format: 'email' },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true, minItems: 1, maxItems: 1001 },
        step: { type: 'number', multipleOf: 0.5, minimum: 0 },
        kind: { enum: [{ pattern: 'kept: data' }] },
        shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
    };
    expect(grammarSafeSchema(schema)).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string', maxLength: 10 },
        when: { type: 'string', format: 'date-time' },
        link: { type: 'string' },
        mail: { type: 'string', format: 'email' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        step: { type: 'number', minimum: 0 },
        kind: { enum: [{ pattern: 'kept: data' }] },
        shape: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
    });
  });

  it("an MCP tool's schema is sent grammar-safe, and its call is still checked against the whole schema", () => {
    const { tools } = toolsFromListing(
      { name: 'srv', moderatorOnly: false },
      [
        {
          name: 'lookup',
          inputSchema: {
            type: 'object',
            properties: { code: { type: 'string', pattern: '^[A-Z]{3}\\d{2}$', maxLength: 5000 } },
            required: ['code'],
          },
        },
      ],
      async () => ({ content: [] }),
    );
    const [lookup] = tools;
    expect(sent(lookup!).properties.code).toEqual({ type: 'string' });
    expect(lookup!.inputSchema).toMatchObject({ properties: { code: { pattern: '^[A-Z]{3}\\d{2}$' } } });
    expect(lookup!.validate({ code: 'ABC12' }).ok).toBe(true);
    expect(lookup!.validate({ code: 'abc' })).toEqual({
      ok: false,
      issues: ['code: must match pattern "^[A-Z]{3}\\d{2}$"'],
    });
  });
});
