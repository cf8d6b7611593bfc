/**
 * Tool calls a model wrote as text in `content`, because the server's parser missed them or the
 * server has no tool protocol at all. Only calls that name a tool offered count, so an answer that
 * happens to be JSON is not mistaken for a call. The forms, with their sources:
 * - Hermes / Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (the Qwen2.5 template,
 *   quoted in LM Studio's docs, 1_developer/3_openai-compat/tools.md; NousResearch
 *   Hermes-Function-Calling), and Qwen3-Coder's XML inside it:
 *   `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>` (vLLM's
 *   qwen3_xml parser; lmstudio-bug-tracker#2115).
 * - A bare JSON object naming a tool, `arguments` or Llama's `parameters`, maybe after Llama's
 *   `<|python_tag|>`, several joined by `;` (vLLM's llama3_json parser; the Llama 3.1 template).
 * - The same object in a fenced ```json block: only in the text protocol, and only when the text is
 *   nothing but such blocks (an answer that shows a call as an example, in any protocol, does not
 *   run it).
 * - Mistral: `[TOOL_CALLS] [{"name": …, "arguments": …}]` and, from v11, `[TOOL_CALLS]name{…}`
 *   (vLLM's MistralToolParser).
 * - LM Studio's default format: `[TOOL_REQUEST]{…}[END_TOOL_REQUEST]` (LM Studio docs, as above).
 * - `<function=NAME>{…}</function>` and `NAME{…}</function>`, as Groq's `failed_generation` shows
 *   them (huggingface/smolagents#1119, sipeed/picoclaw#748).
 */

import { parseJsonOr } from '../text/parse-json.ts';

/** A call found in text: the tool's name and its arguments as JSON text. */
export interface TextToolCall {
  name: string;
  arguments: string;
}

/** How text is read for calls. */
export interface TextCallReading {
  /** Fenced ```json blocks are calls (the text protocol): when the text holds nothing else. */
  fenced: boolean;
}

/** The calls found in `text` (in the order written), naming only tools in `toolNames`; empty if none. */
export function findTextToolCalls(
  text: string,
  toolNames: ReadonlySet<string>,
  reading: TextCallReading = { fenced: false },
): TextToolCall[] {
  for (const find of findersFor(reading)) {
    const calls = find(text).flatMap((candidate) => asCall(candidate, toolNames));
    if (calls.length > 0) return calls;
  }
  return [];
}

/**
 * Marks of a call written in a form this reader does not take, or that did not parse: DeepSeek's
 * `<｜tool▁calls▁begin｜>` (its chat template) and gpt-oss's Harmony `to=functions.NAME`
 * (openai/harmony), besides the forms above.
 */
const callMarks =
  /<tool_call>|<\/tool_call>|\[TOOL_CALLS\]|\[TOOL_REQUEST\]|<function=|<\|python_tag\|>|<｜tool▁call|to=functions\./;

/**
 * Whether `text` looks like a tool call that `findTextToolCalls` could not take: one of the marks, or
 * an object in one of the forms naming a tool (one not offered, say). Such text is never an answer.
 */
export function looksLikeToolCall(text: string, reading: TextCallReading = { fenced: false }): boolean {
  if (callMarks.test(text)) return true;
  return findersFor(reading).some((find) => find(text).some(isCallShaped));
}

/** `{"name": "…", "arguments" | "parameters": …}`, or a list holding one. */
function isCallShaped(candidate: unknown): boolean {
  if (Array.isArray(candidate)) return candidate.some(isCallShaped);
  if (typeof candidate !== 'object' || candidate === null) return false;
  const record = candidate as Record<string, unknown>;
  return typeof record.name === 'string' && ('arguments' in record || 'parameters' in record);
}

/** `{"name", "arguments" | "parameters"}` (arguments as an object, or as JSON text) → a call, if it names a known tool. */
function asCall(candidate: unknown, toolNames: ReadonlySet<string>): TextToolCall[] {
  if (Array.isArray(candidate)) return candidate.flatMap((item) => asCall(item, toolNames));
  if (typeof candidate !== 'object' || candidate === null) return [];
  const record = candidate as Record<string, unknown>;
  // {"function": {"name", "arguments"}}, as some models copy the wire form.
  if (typeof record.function === 'object' && record.function !== null && record.name === undefined)
    return asCall(record.function, toolNames);
  const name = record.name;
  if (typeof name !== 'string' || !toolNames.has(name)) return [];
  const args = record.arguments ?? record.parameters ?? {};
  if (typeof args === 'string') return [{ name, arguments: args }];
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  return [{ name, arguments: JSON.stringify(args) }];
}

function tagged(text: string): unknown[] {
  const found: unknown[] = [];
  for (const match of text.matchAll(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g)) {
    const inner = match[1]!.trim();
    const xml = /^<function=([^>\s]+)>([\s\S]*?)(?:<\/function>|$)/.exec(inner);
    if (xml) found.push({ name: xml[1], arguments: xmlParameters(xml[2]!) });
    else found.push(...jsonValuesIn(inner));
  }
  for (const match of text.matchAll(/\[TOOL_REQUEST\]([\s\S]*?)(?:\[END_TOOL_REQUEST\]|$)/g))
    found.push(...jsonValuesIn(match[1]!));
  return found;
}

/** `<parameter=KEY>VALUE</parameter>`: a value that reads as JSON is taken as such, otherwise as text. */
function xmlParameters(inner: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const match of inner.matchAll(/<parameter=([^>\s]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) {
    const raw = match[2]!;
    args[match[1]!] = parseJson(raw.trim()) ?? raw;
  }
  return args;
}

function mistral(text: string): unknown[] {
  const start = text.indexOf('[TOOL_CALLS]');
  if (start === -1) return [];
  const found: unknown[] = [];
  for (const part of text.slice(start).split('[TOOL_CALLS]').slice(1)) {
    const trimmed = part.trim();
    const named = /^([A-Za-z0-9_.-]+)\s*(?=\{)/.exec(trimmed);
    if (named) {
      const args = readJsonAt(trimmed, named[0].length);
      if (args) found.push({ name: named[1], arguments: args.value });
    } else found.push(...jsonValuesIn(trimmed).slice(0, 1));
  }
  return found;
}

function functionTags(text: string): unknown[] {
  // `<function=NAME>{…}`, `<function=NAME{…}`, and (only beside a `</function>`) `NAME{…}`.
  const pattern = text.includes('</function>')
    ? /(?:<function=|^|\s)([A-Za-z0-9_.-]+)>?\s*(?=\{)/g
    : /<function=([A-Za-z0-9_.-]+)>?\s*(?=\{)/g;
  return [...text.matchAll(pattern)].flatMap((match) => {
    const args = readJsonAt(text, match.index + match[0].length);
    return args ? [{ name: match[1], arguments: args.value }] : [];
  });
}

const fence = /```(?:json)?\s*\n([\s\S]*?)```/g;

/** The values in ```json blocks, when the text is nothing but them: among prose, a block is an example shown. */
function fenced(text: string): unknown[] {
  if (text.replace(fence, '').trim() !== '') return [];
  return [...text.matchAll(fence)].flatMap((match) => jsonValuesIn(match[1]!));
}

/** The whole text as JSON (after `<|python_tag|>`), or JSON values joined by `;`. */
function bare(text: string): unknown[] {
  const trimmed = text.replace(/^\s*<\|python_tag\|>/, '').trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return [];
  const whole = parseJson(trimmed);
  if (whole !== undefined) return [whole];
  return trimmed.split(/;\s*(?=\{)/).flatMap((part) => {
    const value = parseJson(part.trim());
    return value === undefined ? [] : [value];
  });
}

/** The forms, tried in this order: the first that yields a call of a known tool wins. */
function findersFor(reading: TextCallReading): readonly ((text: string) => unknown[])[] {
  return reading.fenced ? [tagged, mistral, functionTags, fenced, bare] : [tagged, mistral, functionTags, bare];
}

/** Every top-level JSON object or array in `text`, in order (text between them skipped). */
function jsonValuesIn(text: string): unknown[] {
  const values: unknown[] = [];
  let index = 0;
  while (index < text.length) {
    const next = text.slice(index).search(/[{[]/);
    if (next === -1) break;
    const read = readJsonAt(text, index + next);
    if (read) {
      values.push(read.value);
      index = read.end;
    } else index += next + 1;
  }
  return values;
}

/** The JSON object or array that starts at `start` (its brackets balanced outside strings), parsed. */
function readJsonAt(text: string, start: number): { value: unknown; end: number } | null {
  if (start < 0 || (text[start] !== '{' && text[start] !== '[')) return null;
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) {
        const value = parseJson(text.slice(start, index + 1));
        return value === undefined ? null : { value, end: index + 1 };
      }
    }
  }
  return null;
}

const parseJson = (text: string): unknown => parseJsonOr(text, undefined);
