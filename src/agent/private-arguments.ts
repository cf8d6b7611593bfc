/**
 * A tool may declare its arguments private (`RuntimeTool.privateArguments`: `remember`, whose
 * argument is a fact a member asked the bot to keep for them alone). The loop then runs the call
 * with the arguments the model wrote, and everything else hears a placeholder in their stead: the
 * `model-call` and `tool-call` events (so the step log, `/steps`, the memory of the thread that the
 * search tools read, the tool posts and the log lines never hold them), and the later model calls
 * of the run, which are sent the reply as recorded. The words and thinking of a reply that makes
 * such a call go too (null, none): they may repeat the arguments ("I'll remember that you…").
 *
 * So too on every path where the call is refused: a tool the run does not offer but whose
 * arguments are private (`RunAgentOptions.privateWhenNotOffered`: `remember` where member memory is
 * off) is looked up by name, so its call, refused as an unknown tool, is recorded as the
 * placeholder; arguments that are no JSON get an error that does not quote them (tool-turn.ts); a
 * schema's issues name the fields, never their values; and a tool's own refusals (the cap reached,
 * too long) do not repeat the fact.
 */
import type { AssistantMessage } from './messages.ts';
import type { RuntimeTool } from './tool.ts';

/** The arguments as recorded: the placeholder of a tool with private arguments, else as written. */
export function shownArguments(tool: Pick<RuntimeTool, 'privateArguments'> | undefined, raw: string): string {
  if (!tool?.privateArguments) return raw;
  // Valid JSON, as a call's arguments must be when the reply is sent back to the model.
  return JSON.stringify({ private: `${tool.privateArguments} (${privateLength(raw)} characters)` });
}

/** The characters of the text the arguments hold (their string values), or of the raw text when it is no JSON object. */
function privateLength(raw: string): number {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object')
      return Object.values(parsed).reduce<number>(
        (sum, value) => sum + (typeof value === 'string' ? value.length : JSON.stringify(value).length),
        0,
      );
  } catch {
    // Not JSON: its length as written.
  }
  return raw.length;
}

/**
 * The reply as it is recorded and sent back: each call of a tool with private arguments shows the
 * placeholder, and the reply keeps neither its text nor its thinking (a server that wants the
 * thinking back is sent it empty: wire-request.ts).
 */
export function withPrivateArgumentsHidden(
  message: AssistantMessage,
  tools: ReadonlyMap<string, Pick<RuntimeTool, 'privateArguments'>>,
): AssistantMessage {
  const calls = message.tool_calls;
  if (!calls?.some((call) => tools.get(call.function.name)?.privateArguments)) return message;
  const { reasoning: _withheld, ...rest } = message;
  return {
    ...rest,
    content: null,
    tool_calls: calls.map((call) => {
      const tool = tools.get(call.function.name);
      return tool?.privateArguments
        ? { ...call, function: { ...call.function, arguments: shownArguments(tool, call.function.arguments) } }
        : call;
    }),
  };
}
