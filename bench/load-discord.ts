/**
 * The load bench's Discord side, in its own process so that its work (checking every request
 * against Discord's spec, dispatching events) is not counted as the bot's: the fake Discord, and
 * the people who talk to the bot. Driven over IPC by bench/load.ts:
 *
 *   → { type: 'load', threads, messages, offset }   each of `threads` people mentions the bot in #general
 *                                             (the bot starts a thread), then asks again in the
 *                                             thread after each answer, `messages` questions in all
 *   ← { type: 'result', … }                  timings, REST calls, and what was missing or wrong
 *   → { type: 'delete', threadIds }          people delete their threads (THREAD_DELETE)
 *   ← { type: 'deleted' }
 *   → { type: 'close' }                      after the bot disconnected: the fake's own checks
 *   ← { type: 'closed', problems }
 *
 * With SERVERS=n in its environment, the bot is in n servers (the seeded one and n − 1 more, made
 * to fall on shards 0, 1, … of SHARDS in turn, for the sharding bench) and each person asks in the
 * #general of server (person's number mod n). GATEWAY_MAX_CONCURRENCY: shards that may identify at once.
 */
import { startFakeDiscord } from '../test/support/fake-discord.ts';

export interface LoadResult {
  type: 'result';
  /** From the first MESSAGE_CREATE to the last answer's POST arriving. */
  totalMs: number;
  /** Per question: MESSAGE_CREATE dispatched → its answer's POST arriving (its first words, when streamed). */
  latenciesMs: number[];
  /** The same for the questions that start a thread (the bot makes the thread, then answers in it). */
  openingLatenciesMs: number[];
  answers: number;
  expected: number;
  /** Questions never answered, answers in the wrong channel or twice. */
  failures: string[];
  /** REST calls during the load, by kind. */
  rest: Record<string, number>;
  restTotal: number;
  /** The most REST calls that arrived within any one second. */
  maxPerSecond: number;
  /** The threads the bot started. */
  threadIds: string[];
  /** When each question that starts a thread was sent (wall clock), by its tag. */
  openingsAskedAt: Record<string, number>;
  /** When the first and the last thread creation reached Discord, from the first question. */
  threadsStartedMs: [number, number];
}

const discord = await startFakeDiscord({ maxConcurrency: Number(process.env.GATEWAY_MAX_CONCURRENCY ?? 1) });
const botId = discord.botUser.id;
const shardCount = Number(process.env.SHARDS ?? 1);
// The seeded server, then more, each on the next shard in turn: spread evenly over the shards.
const servers = [discord.channels.general];
for (let index = 1; index < Number(process.env.SERVERS ?? 1); index++)
  servers.push(discord.addGuild(`Server ${index}`, { shard: [index % shardCount, shardCount] }).generalId);
process.send!({ type: 'ready', apiUrl: discord.apiUrl, token: discord.token });

async function load(threads: number, messages: number, timeoutMs: number, offset: number): Promise<LoadResult> {
  const first = discord.requests.length;
  const failures: string[] = [];
  const waiting = new Map<string, { channelId: string; resolve: (time: number) => void }>();
  const answered = new Set<string>();
  // The answers, found by scanning the request log as it grows (cheaper than a waiter per question).
  let scanned = first;
  const scan = () => {
    for (; scanned < discord.requests.length; scanned++) {
      const request = discord.requests[scanned]!;
      if (request.status === undefined) break; // its body may not be parsed yet
      const content = (request.body as { content?: unknown } | undefined)?.content;
      const tag = typeof content === 'string' ? /Answered (t\d+m\d+)\./.exec(content)?.[1] : undefined;
      if (request.method !== 'POST' || tag === undefined) continue;
      const waiter = waiting.get(tag);
      if (answered.has(tag) || !waiter) failures.push(`${tag}: an answer nobody waited for (twice?)`);
      else if (request.path !== `/channels/${waiter.channelId}/messages`)
        failures.push(`${tag}: answered in ${request.path}, not in its thread ${waiter.channelId}`);
      answered.add(tag);
      waiting.delete(tag);
      waiter?.resolve(request.time);
    }
  };
  const timer = setInterval(scan, 2);
  const answerOf = (tag: string, channelId: string) =>
    new Promise<number>((resolve) => waiting.set(tag, { channelId, resolve }));

  const latenciesMs: number[] = [];
  const openingLatenciesMs: number[] = [];
  const openingsAskedAt: Record<string, number> = {};
  const started = performance.now();
  let lastAnswer = started;
  /** Asks, and waits for the answer in `channelId` (null: in the thread the message starts, whose id is the message's). */
  const ask = async (tag: string, channelId: string | null, input: Parameters<typeof discord.userSays>[0]) => {
    // Registered before the message goes out, so that no answer can come before its waiter.
    const answer = answerOf(tag, channelId ?? 'not yet known');
    const sent = performance.now();
    if (channelId === null) openingsAskedAt[tag] = Date.now();
    const message = await discord.userSays(input);
    const waiter = waiting.get(tag);
    if (channelId === null && waiter) waiter.channelId = message.id;
    const time = await answer;
    latenciesMs.push(time - sent);
    if (channelId === null) openingLatenciesMs.push(time - sent);
    lastAnswer = Math.max(lastAnswer, time);
    return message;
  };
  const threadIds: string[] = [];
  const conversation = async (index: number) => {
    index += offset;
    // One person per thread, as in a busy server (and within the bot's default per-person limit).
    const author = { id: String(400_000_000_000_000_000n + BigInt(index)), username: `person-${index}` };
    // The bot starts a thread from the message that mentions it; the thread takes the message's id.
    const opening = await ask(`t${index}m0`, null, {
      channelId: servers[index % servers.length]!,
      author,
      content: `<@${botId}> [t${index}m0] What is new?`,
      mentions: [botId],
    });
    threadIds.push(opening.id);
    for (let turn = 1; turn < messages; turn++) {
      await ask(`t${index}m${turn}`, opening.id, {
        channelId: opening.id,
        author,
        content: `[t${index}m${turn}] And then?`,
      });
    }
  };
  const all = Promise.all(Array.from({ length: threads }, (_, index) => conversation(index)));
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
  if ((await Promise.race([all, timeout])) === 'timeout')
    failures.push(
      `timed out after ${timeoutMs} ms with ${waiting.size} questions unanswered: ${[...waiting.keys()].slice(0, 10).join(', ')}…`,
    );
  clearInterval(timer);
  scan();

  const during = discord.requests.slice(first);
  const rest: Record<string, number> = {};
  for (const request of during) {
    const kind = request.path.endsWith('/typing')
      ? 'typing indicator'
      : request.method === 'POST' && request.path.endsWith('/threads')
        ? 'thread started'
        : request.method === 'POST' && request.path.endsWith('/messages')
          ? 'message posted'
          : `${request.method} ${request.path.replace(/\d{17,20}/g, ':id')}`;
    rest[kind] = (rest[kind] ?? 0) + 1;
  }
  const threadTimes = during
    .filter((request) => request.method === 'POST' && request.path.endsWith('/threads'))
    .map((request) => request.time - started);
  let maxPerSecond = 0;
  for (let start = 0, end = 0; end < during.length; end++) {
    while (during[end]!.time - during[start]!.time >= 1000) start++;
    maxPerSecond = Math.max(maxPerSecond, end - start + 1);
  }
  return {
    type: 'result',
    totalMs: lastAnswer - started,
    latenciesMs,
    openingLatenciesMs,
    answers: answered.size,
    expected: threads * messages,
    failures,
    rest,
    restTotal: during.length,
    maxPerSecond,
    threadIds,
    openingsAskedAt,
    threadsStartedMs: [threadTimes[0] ?? 0, threadTimes.at(-1) ?? 0],
  };
}

process.on(
  'message',
  (message: {
    type: string;
    threads?: number;
    messages?: number;
    timeoutMs?: number;
    offset?: number;
    threadIds?: string[];
  }) => {
    if (message.type === 'delete') {
      void Promise.all(message.threadIds!.map((id) => discord.deleteThread(id))).then(() =>
        process.send!({ type: 'deleted' }),
      );
    }
    if (message.type === 'load') {
      void load(message.threads!, message.messages!, message.timeoutMs!, message.offset ?? 0).then((result) =>
        process.send!(result),
      );
    }
    if (message.type === 'close') {
      discord
        .close()
        .then(() => process.send!({ type: 'closed', problems: [] }))
        .catch((error: unknown) => process.send!({ type: 'closed', problems: [String(error)] }));
    }
  },
);
process.on('disconnect', () => process.exit(0));
