/**
 * The fake model: one OpenAI-compatible chat-completions server on 127.0.0.1 (fake-model/server.ts)
 * with a mode for each kind of caller. The real openai client talks to it through `baseURL`.
 *
 * - scripted (`startScriptedModel`): each request takes the next scripted reply, in OpenAI's wire
 *   format (`finalAnswer`, `toolCalls`, `text`, `apiError`, or faults: a delay, a hang, a reset, a
 *   body in pieces). It records every request, checks each against the OpenAI spec, and its
 *   `close()` throws for unexpected requests and replies left over. Most tests use it.
 * - quirks (`startFakeModelServer(quirk)`): each request takes the next scripted intent (a call, text,
 *   nothing), which the server renders as a real server with its quirks would, and refuses what it
 *   refuses (model-servers/quirks.ts holds the quirks with their sources). For the model-server
 *   tests, the doctor, and the benches of streamed answers.
 * - echo (`startEchoModel`): answers every question, after a latency, with a final answer naming
 *   its tag; keeps counts only. The load benches' model.
 * - bench (`startBenchModel`): the agent-loop benches' three turns, answered at once.
 *
 * The benches run the echo and bench modes in a process of their own (fake-model/own-process.ts).
 */
export { type BenchModel, startBenchModel } from './fake-model/bench-mode.ts';
export { type EchoModel, type EchoModelCounts, startEchoModel } from './fake-model/echo-mode.ts';
export { type FakeModelServer, type FakeServerOptions, startFakeModelServer } from './fake-model/quirk-mode.ts';
export { apiError, finalAnswer, reportingCache, type ScriptedReply, text, toolCalls } from './fake-model/replies.ts';
export {
  type ChatRequest,
  lastToolMessage,
  type ScriptedModel,
  type ScriptStep,
  startScriptedModel,
} from './fake-model/scripted-mode.ts';
