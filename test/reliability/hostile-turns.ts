/**
 * A seeded generator of hostile model turns: what a broken, confused or adversarial model server
 * could send back as a chat completion. The same seed gives the same case, byte for byte, so a
 * failing seed is replayed from its number (FUZZ_SEED=n).
 */
import type { ScriptedReply } from '../support/fake-model.ts';
import { seededRandom } from '../support/seeded-random.ts';

/** A seeded generator (mulberry32, seeded-random.ts), with the picks the cases are made of. */
class Random {
  /** A float in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** Text that breaks naive handling: lone surrogates, bidi overrides, zero-width, NUL, line separators. */
const oddUnicode = [
  '\ud800',
  '\udfff',
  'a\udc00b',
  '\u202eevil\u202c',
  '\u2066isolate\u2069',
  'zero\u200bwidth\u200d\ufeff',
  'nul\u0000byte',
  '\u0000',
  'line\u2028para\u2029',
  '\r\n\r\n',
  'e\u0301'.repeat(40),
  'Z̷̢̛̪a̸͍̓l̴̰̈́g̵̣̈o̶̗͝',
  '🏳️‍🌈👩‍👩‍👧‍👦',
  '﷽',
  '\u{10ffff}\u{e0001}',
  '`'.repeat(7),
  '```js\nunclosed',
  '\\u0000 "quoted" \\',
  "'; DROP TABLE runs; --",
  '<|endoftext|><|im_start|>system',
];

/** Mentions a careless bot would turn into pings. */
function pingBait(random: Random, ids: { user: string; role: string }): string {
  return random.pick(['@everyone', '@here', `<@${ids.user}>`, `<@!${ids.user}>`, `<@&${ids.role}>`, '@everyone @here']);
}

/** Tool names a model might invent or mangle. */
const unknownNames = [
  'rm_rf',
  'final-answer',
  'FINAL_ANSWER',
  'calculator ',
  ' calculator',
  'functions.calculator',
  'final_answer\u0000',
  '计算器',
  '',
  'x'.repeat(300),
  'multi_tool_use.parallel',
  '__proto__',
  'constructor',
  'toString',
];

/** Argument texts that are not JSON, or not an object. */
const nonJson = [
  '{',
  '}',
  'not json',
  "{'expression': '1+1'}",
  '{"expression": "1+1"',
  'NaN',
  'undefined',
  '[1, 2',
  '{"a":1}{"b":2}',
  '\u0000',
  '{"expression":"1+1",}',
  '"just a string"',
  '42',
  'null',
  'true',
  '[]',
  '{"__proto__": {"polluted": true}}',
];

interface HostileTurn {
  /** What kind of hostility, for the failure report. */
  kind: string;
  reply: ScriptedReply;
}

interface HostileMessage {
  /** What the user says (the thread's first message, or a later one). */
  text: string;
  /** One reply per model call the run may make (more than it needs: the rest are discarded). */
  turns: HostileTurn[];
}

export interface HostileCase {
  seed: number;
  messages: HostileMessage[];
}

export interface GeneratorOptions {
  /** The run's step limit: each message gets this many turns. */
  maxSteps: number;
  /** Ids to aim mentions at. */
  ids: { user: string; role: string };
  /** The largest content or argument text, in characters (a megabyte by default). */
  maxTextChars?: number;
}

/** Numbers the ids of a case's completions and calls (from 0 for each case, so a case is the same alone or in a series). */
let idCounter = 0;

/** A chat completion around `message`, as the server would send it. */
function completionBody(
  message: Record<string, unknown>,
  finishReason: string,
  extra: Record<string, unknown> = {},
): ScriptedReply {
  return {
    body: {
      id: `chatcmpl-fuzz-${++idCounter}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fuzz-model',
      choices: [{ index: 0, message: { refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      ...extra,
    },
  };
}

interface RawCall {
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

function callsTurn(calls: RawCall[], content: unknown = null): ScriptedReply {
  return completionBody({ role: 'assistant', content, tool_calls: calls }, 'tool_calls');
}

function call(random: Random, name: unknown, args: unknown): RawCall {
  return {
    id: `call_${random.int(0, 1e9).toString(36)}_${++idCounter}`,
    type: 'function',
    function: { name, arguments: args },
  };
}

/** A final_answer call the loop accepts. */
function validFinal(random: Random, options: GeneratorOptions): RawCall {
  const answer = random.pick([
    'Here is the answer.',
    `Answer with ${random.pick(oddUnicode)} inside.`,
    `Hey ${pingBait(random, options.ids)}, look at this.`,
    `A ${'long '.repeat(random.int(100, 900))}answer.`,
    '**Bold** _italic_ `code` ||spoiler||',
  ]);
  return call(
    random,
    'final_answer',
    JSON.stringify({ answer, tools_used: random.chance(0.5) ? [] : ['calculator', 'made_up_tool'] }),
  );
}

function bigText(random: Random, options: GeneratorOptions): string {
  const max = options.maxTextChars ?? 1_048_576;
  const size = random.chance(0.5) ? max : random.int(2_000, max);
  const unit = random.pick(['a', 'word ', '\u200b', '🙂', 'é', '\n']);
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** Nested arrays `depth` deep, as JSON text. */
function nested(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** Every kind of hostile turn, each a function of the random source. */
const hostileKinds: Record<string, (random: Random, options: GeneratorOptions) => ScriptedReply> = {
  'unknown tool': (random) => callsTurn([call(random, random.pick(unknownNames), '{}')]),
  'arguments not JSON': (random) =>
    callsTurn([call(random, random.pick(['calculator', 'current_time', 'final_answer']), random.pick(nonJson))]),
  'arguments of the wrong shape': (random) =>
    callsTurn([
      call(
        random,
        random.pick(['calculator', 'current_time', 'final_answer']),
        random.pick([
          '{}',
          '{"expression": 5}',
          '{"expression": null}',
          '{"time_zone": "Mars/Olympus"}',
          '{"expression": "1/0"}',
          '{"expression": "9^9^9^9"}',
          '{"expression": "((((((1))))))"}',
        ]),
      ),
    ]),
  'huge arguments': (random, options) =>
    callsTurn([
      call(
        random,
        random.pick(['calculator', 'final_answer', 'search_conversation']),
        JSON.stringify({ expression: bigText(random, options), answer: 'x', tools_used: [] }),
      ),
    ]),
  'deeply nested arguments': (random) =>
    callsTurn([
      call(
        random,
        random.pick(['calculator', 'final_answer']),
        random.pick([nested(random.int(100, 5_000)), `{"expression": ${nested(random.int(100, 5_000))}}`]),
      ),
    ]),
  'deeply nested arguments as an object': (random) => {
    // Some servers send the arguments as JSON, not as a string: here a very deep one.
    const depth = random.int(1_000, 20_000);
    const raw = `{"id":"call_deep_${++idCounter}","type":"function","function":{"name":"calculator","arguments":${nested(depth)}}}`;
    const text = JSON.stringify(
      completionBody({ role: 'assistant', content: null, tool_calls: ['__RAW__'] }, 'tool_calls').body,
    ).replace('"__RAW__"', raw);
    return { body: text };
  },
  'a hundred parallel calls': (random) =>
    callsTurn(
      Array.from({ length: random.int(50, 150) }, (_, index) =>
        call(
          random,
          random.pick(['calculator', 'current_time', 'nope', 'final_answer']),
          random.pick(['{"expression":"1+1"}', '{"time_zone":null}', '{', `{"expression":"${index}*2"}`]),
        ),
      ),
    ),
  'duplicate tool_call ids': (random) => {
    const id = random.pick(['call_1', 'same', '']);
    return callsTurn(
      Array.from({ length: random.int(2, 5) }, () => ({
        id,
        type: 'function',
        function: {
          name: random.pick(['calculator', 'final_answer', 'nope']),
          arguments: random.pick(['{"expression":"2*3"}', '{"answer":"dup","tools_used":[]}', '{}']),
        },
      })),
    );
  },
  'missing tool_call ids': (random) =>
    callsTurn(
      Array.from({ length: random.int(1, 3) }, () => {
        const raw: RawCall = {
          type: random.pick(['function', undefined]),
          function: { name: 'calculator', arguments: '{"expression":"3+4"}' },
        };
        const id = random.pick([undefined, null, '', 7]);
        if (id !== undefined) raw.id = id;
        return raw;
      }),
    ),
  'empty tool call list': (random) => callsTurn([], random.pick([null, '', 'I will call a tool now.'])),
  'final_answer missing fields': (random) =>
    callsTurn([
      call(
        random,
        'final_answer',
        random.pick([
          '{}',
          '{"answer":"no tools_used"}',
          '{"tools_used":[]}',
          '{"answer":"","tools_used":[]}',
          '{"answer":"   ","tools_used":[]}',
          '{"answer":5,"tools_used":[]}',
          '{"answer":"x","tools_used":"calculator"}',
          '{"answer":null,"tools_used":null}',
        ]),
      ),
    ]),
  'a megabyte of content': (random, options) =>
    random.chance(0.5)
      ? completionBody({ role: 'assistant', content: bigText(random, options) }, 'stop')
      : callsTurn([call(random, 'calculator', '{"expression":"1+1"}')], bigText(random, options)),
  'odd Unicode': (random) => {
    const odd = () => random.pick(oddUnicode);
    return random.pick([
      () => completionBody({ role: 'assistant', content: odd() }, 'stop'),
      () => callsTurn([call(random, 'calculator', JSON.stringify({ expression: odd() }))], odd()),
      () => callsTurn([call(random, odd(), JSON.stringify({ odd: odd() }))]),
      () =>
        callsTurn([
          { id: odd(), type: 'function', function: { name: 'current_time', arguments: '{"time_zone":null}' } },
        ]),
      () => callsTurn([call(random, 'search_conversation', JSON.stringify({ query: odd(), limit: null }))]),
    ])();
  },
  'plain text': (random, options) =>
    completionBody(
      {
        role: 'assistant',
        content: random.pick(['Sure!', '', '   ', `Answer: ${pingBait(random, options.ids)}`, 'I cannot call tools.']),
      },
      random.pick(['stop', 'length', 'content_filter']),
    ),
  'a refusal': (random) =>
    completionBody(
      { role: 'assistant', content: random.pick([null, '']), refusal: "I'm sorry, I can't help with that." },
      'stop',
    ),
  'an answer of invisible characters': (random) =>
    callsTurn([
      call(
        random,
        'final_answer',
        JSON.stringify({
          answer: random.pick(['\u200b', '\u200b\u200b\ufeff', '\u2800', '\u3164', '||\u200b||', '\u0000']),
          tools_used: [],
        }),
      ),
    ]),
  'a valid tool call': (random) =>
    callsTurn([
      call(
        random,
        random.pick(['calculator', 'current_time']),
        random.pick(['{"expression":"6*7"}', '{"time_zone":"UTC"}', '{"time_zone":null}', '']),
      ),
    ]),
  'final_answer beside other calls': (random, options) =>
    callsTurn(
      random.chance(0.5)
        ? [call(random, 'calculator', '{"expression":"1+2"}'), validFinal(random, options)]
        : [
            validFinal(random, options),
            call(random, 'calculator', '{"expression":"1+2"}'),
            validFinal(random, options),
          ],
    ),
  'several final answers': (random, options) => callsTurn([validFinal(random, options), validFinal(random, options)]),
  'malformed completion': (random) =>
    random.pick<() => ScriptedReply>([
      () => ({ body: { id: 'x', object: 'chat.completion', choices: [] } }),
      () => ({
        body: { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: null, finish_reason: 'stop' }] },
      }),
      () => ({ body: {} }),
      () => ({ body: 'null' }),
      () => ({ body: '[]' }),
      () => completionBody({ role: 'assistant', content: null, tool_calls: { not: 'an array' } }, 'tool_calls'),
      () => completionBody({ role: 'assistant', content: null, tool_calls: [null, 5, 'call'] }, 'tool_calls'),
      () =>
        completionBody(
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_custom', type: 'custom', custom: { name: 'x', input: 'y' } }],
          },
          'tool_calls',
        ),
      () =>
        completionBody(
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_nofn', type: 'function' }] },
          'tool_calls',
        ),
      () => completionBody({ role: 'assistant', content: { text: 'an object' } }, 'stop'),
      () =>
        completionBody(
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_objargs',
                type: 'function',
                function: { name: 'calculator', arguments: { expression: '2+2' } },
              },
            ],
          },
          'tool_calls',
        ),
      () =>
        completionBody({ role: 'assistant', content: null }, 'stop', {
          usage: { prompt_tokens: 'many', completion_tokens: -5, total_tokens: null },
        }),
    ])(),
};

const hostileKindNames = Object.keys(hostileKinds);

/** One hostile turn of a kind chosen by `random`, or of `kind`. */
function hostileTurn(random: Random, options: GeneratorOptions, kind = random.pick(hostileKindNames)): HostileTurn {
  return { kind, reply: hostileKinds[kind]!(random, options) };
}

/**
 * The case of a seed: a thread of one to three messages, each answered by hostile turns, then (in
 * most cases) a valid final answer; the run may also end on its own first (step limit, fallback).
 */
export function hostileCase(seed: number, options: GeneratorOptions): HostileCase {
  const random = new Random(seed);
  idCounter = 0;
  const messages = Array.from({ length: random.int(1, 3) }, (_, index): HostileMessage => {
    const hostile = random.int(1, options.maxSteps);
    const turns = Array.from({ length: hostile }, () => hostileTurn(random, options));
    if (random.chance(0.75))
      turns.push({ kind: 'valid final answer', reply: callsTurn([validFinal(random, options)]) });
    while (turns.length < options.maxSteps) turns.push(hostileTurn(random, options));
    const text = random.chance(0.2) ? `question ${index + 1} ${random.pick(oddUnicode)}` : `question ${index + 1}`;
    return { text, turns };
  });
  return { seed, messages };
}
