/**
 * A request a server refused, and the fix its error names: retried once with the fix, which is
 * then remembered for that server and model. Each rule quotes the error it recognises, with its
 * source. Matching is on words of the message, not on a whole message, which servers reword.
 */
import type { ModelError } from '../agent/model-error.ts';
import { type ChatBody, noStreamCode } from './openai-transport.ts';
import type { ServerFixes } from './server-fixes.ts';

export interface RequestFix {
  fixes: ServerFixes;
  /** What was wrong, for the log. */
  why: string;
}

/** The fix for a refused request, or null when the error names none (or the fix is in place already). */
export function fixFor(error: ModelError, body: ChatBody, current: ServerFixes): RequestFix | null {
  // Not a refusal: a streamed request answered whole (openai-transport.ts), so not streamed again.
  if (error.reply?.code === noStreamCode && current.streaming !== false)
    return { fixes: { streaming: false }, why: 'answered a streamed request without a stream' };
  if (error.status !== 400 && error.status !== 422 && error.status !== 404 && error.status !== 500) return null;
  const message = error.reply?.message ?? '';
  const fix = recognise(message, body, current);
  return fix && changes(current, fix.fixes) ? fix : null;
}

function recognise(message: string, body: ChatBody, current: ServerFixes): RequestFix | null {
  // Gemini: `Invalid JSON payload received. Unknown name "additionalProperties" at
  // 'tools[0].function.parameters': Cannot find field.` (openswarm-ai/openswarm#24, zed#44875). A
  // keyword only counts beside "Cannot find field": the same words name `type` when its value is a
  // list ("Proto field is not repeating, cannot start list.", zed#53919), which is fixed otherwise.
  if (/tools\[/.test(message)) {
    // One refusal may list several problems of the schemas: all are fixed at once.
    const fixes: ServerFixes = {};
    const why: string[] = [];
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
    if (why.length > 0) return { fixes, why: `takes in schemas ${why.join(', and ')}` };
  }
  // A model without vision sent an image: only words that say images are not taken at all, never
  // an error about one image ("invalid image", "could not decode image"), which would turn vision
  // off for good. llama.cpp without a projector: 500 "image input is not supported by this server"
  // (ggml-org/llama.cpp#13566), later with "- hint: ... you may need to provide the mmproj"
  // (llamastash/llamastash#13); older llama.cpp and llamafile: "The server was not compiled for
  // multimodal or the model projector can't be loaded." (ggml-org/llama.cpp#8595); OpenAI and
  // Azure: 400 "Invalid content type. image_url is only supported by certain models."
  // (browser-use/web-ui#274); vLLM: "... is not a multimodal model" (vllm-project/vllm#23402);
  // Ollama: "This model does not support images" (ollama/ollama#17065).
  if (carriesImages(body) && imagesUnsupported.test(message) && current.images !== false)
    return { fixes: { images: false }, why: 'the model does not take images' };
  // Mistral: `Tool call id was abc123 but must be a-z, A-Z, 0-9, with a length of 9.` (langchain#24668).
  if (/tool call id was .* must be a-z, A-Z, 0-9, with a length of 9/i.test(message))
    return { fixes: { shortToolCallIds: true }, why: 'it takes only tool-call ids of nine letters or digits' };
  // DeepSeek thinking mode: "Missing `reasoning_content` field in the assistant message at message
  // index 2" / "The `reasoning_content` in the thinking mode must be passed back to the API."
  // (api-docs.deepseek.com/guides/thinking_mode#tool-calls; continuedev/continue#10193).
  if (/reasoning_content/.test(message) && /missing|must be passed back/i.test(message))
    return { fixes: { reasoningBack: 'reasoning_content' }, why: 'it needs the reasoning back on tool-call turns' };
  // Gemini 3: "Function call is missing a thought_signature in functionCall parts."
  // (ai.google.dev/gemini-api/docs/thought-signatures).
  if (/thought_signature/.test(message))
    return { fixes: { keepExtraContent: true }, why: "it needs tool calls' thought signatures back" };
  // llama.cpp without --jinja: "tools param requires --jinja flag" / "Unsupported param: tools"
  // (ggml-org/llama.cpp#10920); Ollama's model without tools (above); OpenRouter: "No endpoints found that support tool use" (OpenManus#55);
  // Azure before api-version 2024-06-01: "tool_choice value as required is enabled only for api
  // versions 2024-06-01 and later" (langchain#29936), "'$.tool_choice' is invalid" (litellm#3876);
  // a third-party model on Azure: 400 `UnsupportedToolUse` (vectorize-io/hindsight#1219).
  // Ollama, for a model whose template has no tools: "registry.ollama.ai/library/gemma3:270m does
  // not support tools" (quoted in clients that detect it; the status is not documented).
  if (
    /requires --jinja|Unsupported param: tools|support tool use|does not support tools|UnsupportedToolUse|tool_choice value as required|'\$\.tool_choice' is invalid/i.test(
      message,
    )
  )
    return { fixes: { toolProtocol: 'text' }, why: 'it does not take tools, or not a forced tool choice' };
  // OpenRouter: "No endpoints found that support the provided 'tool_choice' value" (zed#36094);
  // llama.cpp's newer builds may refuse the object: "Invalid tool_choice" (llama.cpp#28806).
  if (/support the provided 'tool_choice'|Invalid tool_choice/i.test(message))
    return typeof body.tool_choice === 'object' && current.namedChoice !== 'required-with-one-tool'
      ? { fixes: { namedChoice: 'required-with-one-tool' }, why: 'it does not take a named tool choice' }
      : { fixes: { toolProtocol: 'text' }, why: 'it does not take a forced tool choice' };
  // A parameter it does not take: OpenAI-style "Unrecognized request argument supplied: X",
  // llama.cpp's "Unsupported param: X", and "X is not supported" / "unsupported parameter: X".
  const param =
    /(?:Unrecognized request arguments? supplied|Unsupported param(?:eter)?):?\s*'?"?([A-Za-z_]+)/i.exec(
      message,
    )?.[1] ?? /'?"?([A-Za-z_]+)'?"? (?:is not supported|is not permitted|not supported)/i.exec(message)?.[1];
  // Not the tools themselves: Azure's old models say "Unrecognized request arguments supplied:
  // tool_choice, tools" (MicrosoftDocs/azure-docs#118117); without them the agent cannot work.
  if (param === 'tools' || param === 'tool_choice')
    return typeof body.tool_choice === 'object' && current.namedChoice !== 'required-with-one-tool'
      ? { fixes: { namedChoice: 'required-with-one-tool' }, why: 'it does not take a named tool choice' }
      : { fixes: { toolProtocol: 'text' }, why: `it does not take ${param}` };
  // llama.cpp's older builds: "Cannot use tools with stream" (a check in its server's utils.hpp
  // beside "tools param requires --jinja flag", from the time of ggml-org/llama.cpp#10920); and a
  // server that names `stream` as a parameter it does not take: replies are read whole from then on.
  if (/Cannot use tools with stream/i.test(message) && body.stream === true)
    return { fixes: { streaming: false }, why: 'it does not stream tool calls' };
  if ((param === 'stream' || param === 'stream_options') && body.stream === true)
    return { fixes: { streaming: false }, why: 'it does not stream replies' };
  if (param && param in body && param !== 'messages' && param !== 'model')
    return { fixes: { dropParams: [param] }, why: `it does not take the parameter ${param}` };
  return null;
}

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

/** Whether applying `fix` changes anything: a fix in place already would loop. */
function changes(current: ServerFixes, fix: ServerFixes): boolean {
  return Object.entries(fix).some(([key, value]) => {
    const now = current[key as keyof ServerFixes];
    if (Array.isArray(value))
      return value.some((item) => !((now as readonly string[] | undefined) ?? []).includes(item));
    return JSON.stringify(now) !== JSON.stringify(value);
  });
}
