/**
 * The real bot, end to end, against fakes of the model servers people use, each reproducing a
 * documented quirk in its wire format (test/support/model-servers/quirks.ts, sources there): it
 * answers right, posts no protocol text and no thinking, and never loops.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { OpenAIModelClientOptions } from '../../src/model-servers/openai-model-client.ts';
import { rejectedCallNote } from '../../src/agent/turns/rejected-call.ts';
import { askInGeneral, type BotWorld, startBotWorld, waitForBotPosts } from '../support/bot-harness.ts';
import { answer, call, type Intent, type SeenRequest } from '../support/model-servers/brain.ts';
import { type FakeModelServer, startFakeModelServer } from '../support/fake-model.ts';
import * as quirks from '../support/model-servers/quirks.ts';
import type { Quirk } from '../support/model-servers/quirks.ts';

let world: BotWorld | undefined;
let server: FakeModelServer | undefined;
afterEach(async () => {
  await world?.close();
  await server?.close();
  world = undefined;
  server = undefined;
});

async function startOn(quirk: Quirk, client: Partial<OpenAIModelClientOptions> = {}, maxSteps = 10) {
  server = await startFakeModelServer(quirk);
  world = await startBotWorld({}, { maxSteps }, { baseURL: server.baseURL, provider: 'auto', ...client });
  return { server, world };
}

/** Ada asks in #general; resolves with the thread and the bot's first `posts` posts there. */
async function ask(question: string, posts: number) {
  const { thread } = await askInGeneral(world!, question);
  return { thread, posted: (await waitForBotPosts(world!, thread.id, posts)).map((post) => post.content) };
}

/** A posted answer without its footer (the tools it used, as `-# 🔧 …`). */
const answerOf = (post: string | undefined) => post?.split('\n-# ')[0];

/** Ada says more in the thread; resolves with the bot's posts there once there are `posts`. */
async function followUp(threadId: string, text: string, posts: number) {
  await world!.discord.userSays({ channelId: threadId, author: 'ada', content: text });
  return (await waitForBotPosts(world!, threadId, posts)).map((post) => post.content);
}

/** What must never reach Discord: protocol text and thinking. */
function expectClean(posted: string[]) {
  for (const text of posted) {
    expect(text).not.toMatch(
      /<tool_call>|<\/?think>|\[TOOL_CALLS\]|"name":|```json|reasoning|Thinking it over|must not say/i,
    );
  }
}

const runsOf = () => world!.store.db.prepare('SELECT status, error FROM runs ORDER BY started_at, rowid').all();
const learned = () => world!.store.modelServers.get(server!.baseURL, 'test-model')?.learned ?? '{}';
const calculate = call('calculator', { expression: '2+2' });

describe('tool calls written as text in the content', () => {
  it.each([quirks.hermesCallInContent, quirks.bareJsonCallInContent])(
    '$name: read as calls, run, and never posted',
    async (quirk) => {
      await startOn(quirk);
      server!.enqueue(calculate, answer('2 + 2 = 4.', ['calculator']));

      const { posted } = await ask('what is 2+2?', 2);

      expect(posted[0]).toContain('**calculator**');
      expect(posted[0]).toContain('→ `4`');
      expect(answerOf(posted[1])).toBe('2 + 2 = 4.');
      expectClean(posted);
      // The calculator's result reached the model as a tool message answering the call read from text.
      const second = server!.requests[1]!;
      const toolMessage = second.messages.at(-1)!;
      expect(toolMessage).toMatchObject({ role: 'tool', content: '4' });
      expect(second.messages.at(-2)!.tool_calls).toMatchObject([{ function: { name: 'calculator' } }]);
      expect(runsOf()).toEqual([{ status: 'answered', error: null }]);
    },
  );

  it('a call in a fenced json block among words is not run (it may be an example): the server is asked in the text protocol, where calls are read', async () => {
    await startOn(quirks.fencedJsonCallInContent);
    server!.enqueue(calculate, calculate, answer('2 + 2 = 4.', ['calculator']));

    const { posted } = await ask('what is 2+2?', 2);

    expect(posted[0]).toContain('**calculator**');
    expect(posted[0]).toContain('→ `4`');
    expect(answerOf(posted[1])).toBe('2 + 2 = 4.');
    expectClean(posted);
    expect(server!.requests.map((request) => (request.tools ? 'native' : 'text'))).toEqual(['native', 'text', 'text']);
    expect(JSON.parse(learned())).toMatchObject({ toolProtocol: 'text' });
    expect(runsOf()).toEqual([{ status: 'answered', error: null }]);
  });
});

describe('a call written as text that cannot be read', () => {
  it('is never taken for the answer: the model hears what is wrong and writes it again', async () => {
    await startOn(quirks.hermesCallInContent);
    server!.enqueue(
      { broken: '<tool_call>\n{"name": "calculator", "arguments": {"expression": \n</tool_call>' },
      (request) => {
        expect(request.messages.at(-1)).toMatchObject({
          role: 'user',
          content: expect.stringContaining('could not be read'),
        });
        return calculate;
      },
      answer('4.', ['calculator']),
    );
    const { posted } = await ask('what is 2+2?', 2);
    expect(answerOf(posted[1])).toBe('4.');
    expectClean(posted);
  });
});

describe('a server that ignores the forced tool choice', () => {
  it('Ollama: a plain-text reply switches the server to the text protocol, remembered for the next run', async () => {
    await startOn(quirks.ollamaIgnoresToolChoice);
    const textProtocol = (request: SeenRequest) => {
      expect(request.tools).toBeUndefined();
      expect(request.tool_choice).toBeUndefined();
      expect(request.messages[0]!.content).toContain('<tools>');
    };
    server!.enqueue({ say: 'It is 4, I think.' }, (request) => {
      textProtocol(request);
      return answer('It is 4.');
    });

    const { thread, posted } = await ask('what is 2+2?', 1);
    expect(posted).toEqual(['It is 4.']);
    expect(JSON.parse(learned())).toEqual({ toolProtocol: 'text' });

    // Remembered in the database: after a restart, the next run starts in the text protocol; its
    // tool call is read from the text, its result sent back as text.
    await world!.restart();
    server!.enqueue(
      (request) => {
        textProtocol(request);
        return calculate;
      },
      (request) => {
        expect(request.messages.at(-1)).toEqual({
          role: 'user',
          content: '<tool_response>\n{"name":"calculator","content":"4"}\n</tool_response>',
        });
        return answer('Still 4.', ['calculator']);
      },
    );
    const more = await followUp(thread.id, 'and again?', 3);
    expect(more[1]).toContain('**calculator**');
    expect(answerOf(more[2])).toBe('Still 4.');
    expectClean(more);
    expect(server!.requests).toHaveLength(4);
  });

  it('LM Studio: an empty reply to a forced call is the same sign, and is handled the same way', async () => {
    await startOn(quirks.emptyReplyWhenForced);
    server!.enqueue({ say: 'whatever the model says' }, answer('Hello, Ada.'));
    const { posted } = await ask('hello', 1);
    expect(posted).toEqual(['Hello, Ada.']);
    expect(JSON.parse(learned()).toolProtocol).toBe('text');
  });

  it('llama.cpp: a named choice answered with another tool at the last step is sent again as "required" with that tool alone', async () => {
    await startOn(quirks.llamacppNamedChoiceAsAuto, {}, 2);
    server!.enqueue(calculate, calculate, (request) => {
      expect(request.tool_choice).toBe('required');
      expect(request.tools!.map((tool) => tool.function.name)).toEqual(['final_answer']);
      return answer('4.', ['calculator']);
    });
    const { posted } = await ask('what is 2+2?', 2);
    expect(answerOf(posted[1])).toBe('4.');
    expect(JSON.parse(learned())).toEqual({ namedChoice: 'required-with-one-tool' });
  });

  it('never loops: a model that never calls a tool, in either protocol, ends the run with its text after one nudge', async () => {
    await startOn(quirks.ollamaIgnoresToolChoice);
    server!.otherwise(() => ({ say: 'Just chatting, no tools.' }));
    const { posted } = await ask('hello', 1);
    expect(posted).toEqual(['Just chatting, no tools.']);
    // Native, then the same request in the text protocol; neither called a tool, so nothing is
    // remembered; after the nudge, the same again: four requests, no more.
    await world!.bot.queues.idle();
    expect(server!.requests).toHaveLength(4);
    expect(learned()).toBe('{}');
  });
});

describe('one odd reply from a server that enforces the choice', () => {
  it('is taken for a fluke: not switched, nothing learned; the loop asks once more', async () => {
    await startOn(quirks.compliant, { provider: 'openai' });
    server!.enqueue({ empty: true }, answer('Hello.'));
    const { posted } = await ask('hello', 1);
    expect(posted).toEqual(['Hello.']);
    expect(server!.requests.map((request) => request.tools === undefined)).toEqual([false, false]);
    expect(learned()).toBe('{}');
  });
});

describe('requests a server refuses, fixed from its error and remembered', () => {
  it('a refusal the fix does not cure is sent twice, no more, and ends the run with a clear message', async () => {
    const stubborn: Quirk = {
      ...quirks.compliant,
      name: 'refuses a keyword it was never sent',
      refuse: () => ({
        status: 400,
        body: [
          {
            error: {
              code: 400,
              message: `Invalid JSON payload received. Unknown name "bogus" at 'tools[0].function.parameters': Cannot find field.`,
              status: 'INVALID_ARGUMENT',
            },
          },
        ],
      }),
    };
    await startOn(stubborn);
    const { posted } = await ask('hello', 1);
    expect(posted[0]).toBe('The model service refused the request. The operator can find the cause in the logs.');
    expect(server!.requests).toHaveLength(2);
    expect(runsOf()).toEqual([{ status: 'failed', error: expect.stringContaining('Unknown name "bogus"') }]);
  });

  it('Gemini: refused schema keywords are left out, thought signatures sent back, both learned', async () => {
    await startOn(quirks.gemini, { provider: 'generic' });
    server!.enqueue(calculate, (request) => {
      const assistant = request.messages.findLast((message) => message.role === 'assistant')!;
      expect(assistant.tool_calls).toMatchObject([
        { extra_content: { google: { thought_signature: expect.stringMatching(/^sig-/) } } },
      ]);
      return answer('4.', ['calculator']);
    });
    const { posted } = await ask('what is 2+2?', 2);
    expect(answerOf(posted[1])).toBe('4.');
    expect(JSON.parse(learned())).toMatchObject({
      // current_time's optional time zone is `type: ["string", "null"]`.
      collapseTypeLists: true,
      dropSchemaKeywords: expect.arrayContaining(['additionalProperties', 'strict']),
      keepExtraContent: true,
    });
    expect(JSON.parse(learned()).dropSchemaKeywords).not.toContain('type');
    expect(runsOf()).toEqual([{ status: 'answered', error: null }]);
  });

  it('Gemini, named: its profile sends what it takes from the first request on', async () => {
    await startOn(quirks.gemini, { provider: 'gemini' });
    server!.enqueue(calculate, answer('4.', ['calculator']));
    const { posted } = await ask('what is 2+2?', 2);
    expect(answerOf(posted[1])).toBe('4.');
    expect(server!.requests).toHaveLength(2);
    expect(learned()).toBe('{}');
  });

  it('Mistral: after a /tool call in the thread, history ids are made nine letters or digits', async () => {
    await startOn(quirks.mistral, { provider: 'generic' });
    server!.enqueue(answer('Hi.'));
    const { thread } = await ask('hello', 1);
    const interaction = await world!.discord.userRunsCommand({
      name: 'tool',
      subcommand: 'calculator',
      options: { expression: '6*7' },
      author: 'bob',
      channelId: thread.id,
    });
    await interaction.waitForReply((reply) => reply.content !== '');
    server!.enqueue((request) => {
      const ids = request.messages.flatMap((message) =>
        (message.tool_calls ?? []).map((toolCall) => (toolCall as { id: string }).id),
      );
      expect(ids.every((id) => /^[A-Za-z0-9]{9}$/.test(id))).toBe(true);
      return answer('Bob computed 42.', ['calculator']);
    });
    const posted = await followUp(thread.id, 'what did Bob compute?', 3);
    expect(answerOf(posted.at(-1))).toBe('Bob computed 42.');
    expect(JSON.parse(learned())).toEqual({ shortToolCallIds: true });
  });

  it('DeepSeek: reasoning is sent back on tool-call turns once it asks, and never posted', async () => {
    await startOn(quirks.reasoningField('reasoning_content', { requiredBack: true }), { provider: 'generic' });
    server!.enqueue(calculate, answer('4.', ['calculator']));
    const { posted } = await ask('what is 2+2?', 2);
    expect(answerOf(posted[1])).toBe('4.');
    expectClean(posted);
    expect(JSON.parse(learned())).toEqual({ reasoningBack: 'reasoning_content' });
    const sentBack = server!.requests.at(-1)!.messages.findLast((message) => message.role === 'assistant')!;
    expect((sentBack as { reasoning_content?: string }).reasoning_content).toContain('Thinking it over');
  });
});

describe("Groq's tool_use_failed", () => {
  it('reads the call from failed_generation when it can', async () => {
    await startOn(quirks.groq);
    server!.enqueue({ broken: 'calculator{"expression": "2+2"}</function>' }, answer('4.', ['calculator']));
    const { posted } = await ask('what is 2+2?', 2);
    expect(posted[0]).toContain('**calculator**');
    expect(answerOf(posted[1])).toBe('4.');
    expectClean(posted);
  });

  it('otherwise tells the model what went wrong, as an observation, and it tries again', async () => {
    await startOn(quirks.groq);
    const broken: Intent = { broken: 'I will call the calculator now, with 2+2.' };
    server!.enqueue(broken, (request) => {
      expect(request.messages.at(-1)).toEqual({
        role: 'user',
        content: rejectedCallNote(
          "the server could not read your tool call (Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.)",
        ),
      });
      return answer('4.');
    });
    const { posted } = await ask('what is 2+2?', 1);
    expect(posted).toEqual(['4.']);
  });

  it('ends the run after two unreadable calls in a row', async () => {
    await startOn(quirks.groq);
    server!.otherwise(() => ({ broken: 'not a call at all' }));
    const { posted } = await ask('what is 2+2?', 1);
    expect(posted[0]).toContain('without an answer');
    await world!.bot.queues.idle();
    expect(server!.requests).toHaveLength(3);
  });
});

describe('thinking', () => {
  it.each([quirks.thinkInContent, quirks.reasoningField('reasoning'), quirks.reasoningField('reasoning_content')])(
    '$name: kept out of every post and the answer, kept in the step log',
    async (quirk) => {
      await startOn(quirk);
      server!.enqueue(calculate, answer('4.', ['calculator']));
      const { posted } = await ask('what is 2+2?', 2);
      expect(answerOf(posted[1])).toBe('4.');
      expectClean(posted);
      const logged = world!.store.db
        .prepare<[], string>("SELECT message FROM steps WHERE kind = 'model-call' ORDER BY rowid")
        .pluck()
        .all()
        .map((message) => JSON.parse(message) as { reasoning?: string; content: string | null });
      expect(logged[0]!.reasoning).toMatch(/must not say|Thinking it over/);
      expect(logged.every((message) => !/<think>/.test(message.content ?? ''))).toBe(true);
    },
  );
});

describe('TOOL_PROTOCOL, the operator’s choice', () => {
  it('native is never switched, even on a server that ignores the choice: the loop nudges, then takes the text', async () => {
    await startOn(quirks.ollamaIgnoresToolChoice, { toolProtocol: 'native' });
    server!.enqueue({ say: 'It is 4.' }, { say: 'It is 4, as I said.' });
    const { posted } = await ask('what is 2+2?', 1);
    expect(posted).toEqual(['It is 4, as I said.']);
    expect(server!.requests.every((request) => request.tools !== undefined)).toBe(true);
    expect(learned()).toBe('{}');
  });

  it('text is used from the first request, even on a server that honours everything', async () => {
    await startOn(quirks.compliant, { toolProtocol: 'text' });
    server!.enqueue(calculate, answer('4.', ['calculator']));
    const { posted } = await ask('what is 2+2?', 2);
    expect(answerOf(posted[1])).toBe('4.');
    expect(server!.requests.map((request) => request.tools)).toEqual([undefined, undefined]);
    expectClean(posted);
  });
});
