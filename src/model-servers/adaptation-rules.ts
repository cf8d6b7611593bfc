/**
 * When the bot changes how it speaks to a server, from what an answer shows: a refused request
 * whose error names the fix (the table below: a new quirk of a server's errors is one row there,
 * with its source), and a reply that ignored the forced tool choice. The client applies these in a
 * run (server-client.ts) and `npm run doctor` reports them (src/doctor/verdicts.ts); what a fix is,
 * and how fixes add up, is server-fixes.ts.
 */
import type { ModelError } from '../agent/model-error.ts';
import { type ChatBody, noStreamCode } from './openai-transport.ts';
import type { ProviderProfile } from './profiles/profile.ts';
import { changesFixes, type ServerFixes, type ToolProtocol } from './server-fixes.ts';

export interface RequestFix {
  fixes: ServerFixes;
  /** What was wrong, for the log. */
  why: string;
}

/** A refused request, as a rule reads it. */
interface Refusal {
  /** The server's words. Rules match words of it, not a whole message, which servers reword. */
  message: string;
  /** The request it refused. */
  body: ChatBody;
  /** The fixes the request was sent with. */
  current: ServerFixes;
}

/** One quirk of a server's errors: how a refusal shows it, the fix it names, and where it is documented. */
interface ErrorRule<Found> {
  /** Whether the refusal is this one: words it must hold, or what it names (a parameter, keywords). */
  match: RegExp | ((refusal: Refusal) => Found | false | null | undefined);
  fix: ServerFixes | ((found: Found) => ServerFixes);
  /** What was wrong, for the log ("the model server <why>"). */
  why: string | ((found: Found) => string);
  /** The error as the server words it, and where that is found. */
  source: string;
}

/** A row of the table, read: the fix the refusal names, or null when the rule does not apply. */
type ReadRule = (refusal: Refusal) => RequestFix | null;

function rule<Found>({ match, fix, why }: ErrorRule<Found>): ReadRule {
  return (refusal) => {
    const found = match instanceof RegExp ? match.test(refusal.message) && (true as Found) : match(refusal);
    if (found === false || found === null || found === undefined) return null;
    return {
      fixes: typeof fix === 'function' ? fix(found) : fix,
      why: typeof why === 'function' ? why(found) : why,
    };
  };
}

/** Refusals whose error may name a fix. */
const refusalStatuses = new Set([400, 404, 422, 500]);

/** The fix for a refused request, or null when the error names none (or the fix is in place already). */
export function fixFor(error: ModelError, body: ChatBody, current: ServerFixes): RequestFix | null {
  // Not a refusal: a streamed request answered whole (openai-transport.ts), so not streamed again.
  if (error.reply?.code === noStreamCode && current.streaming !== false)
    return { fixes: { streaming: false }, why: 'answered a streamed request without a stream' };
  if (error.status === null || !refusalStatuses.has(error.status)) return null;
  const refusal: Refusal = { message: error.reply?.message ?? '', body, current };
  // The first rule that applies names the fix; the later ones are not read.
  for (const read of errorRules) {
    const fix = read(refusal);
    if (fix) return changesFixes(current, fix.fixes) ? fix : null;
  }
  return null;
}

/**
 * A named choice the server refused is first sent as "required" with that tool alone; once that is
 * in place (or the choice was "required"), only the text protocol is left.
 */
const namedChoiceFirst = ({ body, current }: Refusal) =>
  typeof body.tool_choice === 'object' && current.namedChoice !== 'required-with-one-tool';

/** How servers say they do not take a parameter (its name captured), in the order they are tried. */
const paramRefusals = [
  // OpenAI-style "Unrecognized request argument supplied: X", llama.cpp's "Unsupported param: X".
  /(?:Unrecognized request arguments? supplied|Unsupported param(?:eter)?):?\s*'?"?([A-Za-z_]+)/i,
  // "X is not supported", "X is not permitted".
  /'?"?([A-Za-z_]+)'?"? (?:is not supported|is not permitted|not supported)/i,
];

/** The parameter an error says the server does not take. */
function refusedParam(message: string): string | undefined {
  for (const wording of paramRefusals) {
    const name = wording.exec(message)?.[1];
    if (name) return name;
  }
  return undefined;
}

/** Tools or tool_choice named as a parameter it does not take: without them the agent cannot work. */
const refusedTools = (message: string) => {
  const param = refusedParam(message);
  return param === 'tools' || param === 'tool_choice' ? param : null;
};

/** What a refusal of the tools' schemas lists: one refusal may list several problems, all fixed at once. */
function schemaProblems({ message, current }: Refusal): RequestFix | null {
  if (!/tools\[/.test(message)) return null;
  const fixes: ServerFixes = {};
  const why: string[] = [];
  // A keyword only counts beside "Cannot find field": the same words name `type` when its value is a list.
  if (/Proto field is not repeating/.test(message) && !current.collapseTypeLists) {
    fixes.collapseTypeLists = true;
    why.push('no list of types');
  }
  const unknownNames = [...message.matchAll(/Unknown name "([^"]+)"[^\n]*Cannot find field/g)]
    .map((match) => match[1]!)
    .filter((name) => name !== 'type');
  if (unknownNames.length > 0) {
    fixes.dropSchemaKeywords = [...new Set(unknownNames)];
    why.push(`not the keywords ${fixes.dropSchemaKeywords.join(', ')}`);
  }
  return why.length > 0 ? { fixes, why: `takes in schemas ${why.join(', and ')}` } : null;
}

/** Only words that say images are not taken at all: an error about one image must not turn vision off for good. */
const imagesUnsupported =
  /does not support (images?|vision)|image input is not supported|image_url is only supported by certain models|mmproj|multimodal|vision is not enabled/i;

/** Whether a request body holds an image part. */
function carriesImages(body: ChatBody): boolean {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  return messages.some(
    (message) =>
      Array.isArray(message.content) &&
      (message.content as { type?: unknown }[]).some((part) => part.type === 'image_url'),
  );
}

const toolsUnsupported =
  /requires --jinja|Unsupported param: tools|support tool use|does not support tools|UnsupportedToolUse|tool_choice value as required|'\$\.tool_choice' is invalid/i;

const toolChoiceUnsupported = /support the provided 'tool_choice'|Invalid tool_choice/i;

const toolChoiceSources =
  'OpenRouter: "No endpoints found that support the provided \'tool_choice\' value" (zed-industries/zed#36094); llama.cpp\'s newer builds: "Invalid tool_choice" (ggml-org/llama.cpp#28806)';

const paramSources =
  'OpenAI-style "Unrecognized request argument supplied: X", llama.cpp\'s "Unsupported param: X", "X is not supported" / "unsupported parameter: X"; Azure\'s old models: "Unrecognized request arguments supplied: tool_choice, tools" (MicrosoftDocs/azure-docs#118117)';

/** The error rules, in the order they are tried: the first that applies names the fix. */
const errorRules: readonly ReadRule[] = [
  rule({
    match: schemaProblems,
    fix: (found) => found.fixes,
    why: (found) => found.why,
    source:
      'Gemini: `Invalid JSON payload received. Unknown name "additionalProperties" at \'tools[0].function.parameters\': Cannot find field.` (openswarm-ai/openswarm#24, zed-industries/zed#44875); a list of types: "Proto field is not repeating, cannot start list." (zed-industries/zed#53919)',
  }),
  rule({
    match: ({ message, body, current }) =>
      carriesImages(body) && imagesUnsupported.test(message) && current.images !== false,
    fix: { images: false },
    why: 'the model does not take images',
    source:
      'llama.cpp without a projector: 500 "image input is not supported by this server" (ggml-org/llama.cpp#13566), later with "- hint: ... you may need to provide the mmproj" (llamastash/llamastash#13); older llama.cpp and llamafile: "The server was not compiled for multimodal or the model projector can\'t be loaded." (ggml-org/llama.cpp#8595); OpenAI and Azure: 400 "Invalid content type. image_url is only supported by certain models." (browser-use/web-ui#274); vLLM: "... is not a multimodal model" (vllm-project/vllm#23402); Ollama: "This model does not support images" (ollama/ollama#17065)',
  }),
  rule({
    match: /tool call id was .* must be a-z, A-Z, 0-9, with a length of 9/i,
    fix: { shortToolCallIds: true },
    why: 'it takes only tool-call ids of nine letters or digits',
    source:
      'Mistral: "Tool call id was abc123 but must be a-z, A-Z, 0-9, with a length of 9." (langchain-ai/langchain#24668)',
  }),
  rule({
    match: ({ message }) => /reasoning_content/.test(message) && /missing|must be passed back/i.test(message),
    fix: { reasoningBack: 'reasoning_content' },
    why: 'it needs the reasoning back on tool-call turns',
    source:
      'DeepSeek thinking mode: "Missing `reasoning_content` field in the assistant message at message index 2" / "The `reasoning_content` in the thinking mode must be passed back to the API." (api-docs.deepseek.com/guides/thinking_mode#tool-calls; continuedev/continue#10193)',
  }),
  rule({
    match: /thought_signature/,
    fix: { keepExtraContent: true },
    why: "it needs tool calls' thought signatures back",
    source:
      'Gemini 3: "Function call is missing a thought_signature in functionCall parts." (ai.google.dev/gemini-api/docs/thought-signatures)',
  }),
  rule({
    match: toolsUnsupported,
    fix: { toolProtocol: 'text' },
    why: 'it does not take tools, or not a forced tool choice',
    source:
      'llama.cpp without --jinja: "tools param requires --jinja flag" / "Unsupported param: tools" (ggml-org/llama.cpp#10920); OpenRouter: "No endpoints found that support tool use" (FoundationAgents/OpenManus#55); Azure before api-version 2024-06-01: "tool_choice value as required is enabled only for api versions 2024-06-01 and later" (langchain-ai/langchain#29936), "\'$.tool_choice\' is invalid" (BerriAI/litellm#3876); a third-party model on Azure: 400 `UnsupportedToolUse` (vectorize-io/hindsight#1219); Ollama, a model whose template has no tools: "registry.ollama.ai/library/gemma3:270m does not support tools" (quoted in clients that detect it; the status is not documented)',
  }),
  rule({
    match: (refusal) => toolChoiceUnsupported.test(refusal.message) && namedChoiceFirst(refusal),
    fix: { namedChoice: 'required-with-one-tool' },
    why: 'it does not take a named tool choice',
    source: toolChoiceSources,
  }),
  rule({
    match: toolChoiceUnsupported,
    fix: { toolProtocol: 'text' },
    why: 'it does not take a forced tool choice',
    source: toolChoiceSources,
  }),
  rule({
    match: (refusal) => refusedTools(refusal.message) && namedChoiceFirst(refusal),
    fix: { namedChoice: 'required-with-one-tool' },
    why: 'it does not take a named tool choice',
    source: paramSources,
  }),
  rule({
    match: ({ message }) => refusedTools(message),
    fix: { toolProtocol: 'text' },
    why: (param) => `it does not take ${param}`,
    source: paramSources,
  }),
  rule({
    match: ({ message, body }) => /Cannot use tools with stream/i.test(message) && body.stream === true,
    fix: { streaming: false },
    why: 'it does not stream tool calls',
    source:
      'llama.cpp\'s older builds: "Cannot use tools with stream" (a check in its server\'s utils.hpp beside "tools param requires --jinja flag", from the time of ggml-org/llama.cpp#10920)',
  }),
  rule({
    match: ({ message, body }) => {
      const param = refusedParam(message);
      return (param === 'stream' || param === 'stream_options') && body.stream === true;
    },
    fix: { streaming: false },
    why: 'it does not stream replies',
    source: `a server that names \`stream\` as a parameter it does not take: ${paramSources}`,
  }),
  rule({
    match: ({ message, body }) => {
      const param = refusedParam(message);
      return param && param in body && param !== 'messages' && param !== 'model' ? param : null;
    },
    fix: (param) => ({ dropParams: [param] }),
    why: (param) => `it does not take the parameter ${param}`,
    source: paramSources,
  }),
];

export interface Adapting {
  profile: ProviderProfile;
  /** TOOL_PROTOCOL: only `auto` adapts. */
  toolProtocol: ToolProtocol | 'auto';
  /** The fixes in effect. */
  fixes: ServerFixes;
}

/** A reply without a call, as the rules read it: why it ended, and its visible text (thinking taken out). */
export interface CallessReply {
  finishReason: string | null;
  text: string;
}

/**
 * How a call begins when a server's grammar forces one: JSON (the generic format and most native
 * ones), a tag (`<tool_call>`, `<function=…>`, `<|python_tag|>`), Mistral's `[TOOL_CALLS]`, or a
 * fenced block. A reply cut short that begins so may be a call the length limit interrupted.
 */
const beginsACall = /^(?:[{[<]|```)/;

/**
 * Whether a reply without a call shows that the forced choice was not enforced. Plain text does,
 * even cut at the length limit: a grammar that forces a call (llama.cpp's for `required`,
 * docs/function-calling.md) never lets a reply begin with prose, so a reply that does was free,
 * wherever it was cut (the real llama-server without a tool template, b8291: prose until
 * `finish_reason: "length"`). A cut reply that is empty (all thinking) or begins like a call, or
 * one a content filter stopped, shows nothing of the choice.
 */
export function showsChoiceIgnored({ finishReason, text }: CallessReply): boolean {
  if (finishReason === 'content_filter') return false;
  if (finishReason !== 'length') return true;
  const visible = text.trim();
  return visible !== '' && !beginsACall.test(visible);
}

/**
 * A reply without a call where one was forced means the server ignores the forced choice, and the
 * bot moves to the text protocol: unless the operator chose the protocol, or it is in use already,
 * or the profile says the server enforces the choice (then it is a fluke, not a habit), or the
 * reply shows nothing of the choice (`showsChoiceIgnored`). The doctor and a run read a reply by
 * this one rule.
 */
export function switchesToText(adapting: Adapting, reply: CallessReply): boolean {
  if (adapting.toolProtocol !== 'auto' || adapting.fixes.toolProtocol === 'text') return false;
  if (adapting.profile.honours.requiredChoice === 'yes') return false;
  return showsChoiceIgnored(reply);
}

/**
 * A named choice answered with another tool means the server does not honour it, and the bot sends
 * it as "required" with that tool alone: unless the operator chose the protocol, the text protocol
 * is in use (its prompt names the tool), the fix is in place, or the profile says it is enforced.
 */
export function learnsNamedChoice(adapting: Adapting): boolean {
  if (adapting.toolProtocol !== 'auto' || adapting.fixes.toolProtocol === 'text') return false;
  return adapting.fixes.namedChoice !== 'required-with-one-tool' && adapting.profile.honours.namedChoice !== 'yes';
}
