/**
 * CONTENT_CHECK=guard: a guard model (Llama Guard 3, served by Ollama or vLLM) asked through chat
 * completions. Its chat template builds the prompt: the conversation goes in as plain messages (a
 * question alone, or the question and the answer to judge as the assistant's turn), and the model
 * replies `safe`, or `unsafe` and a line of categories (`S1,S10`). Ollama's model card shows this
 * use (https://ollama.com/library/llama-guard3, "Response classification"); the template and the
 * categories are Meta's (https://huggingface.co/meta-llama/Llama-Guard-3-8B, "Hazard Taxonomy and
 * Policy"). Text only: Llama Guard 3 8B and 1B read no images.
 */
import { describeError } from '../agent/errors.ts';
import { createOpenAITransport } from '../model-servers/openai-transport.ts';
import type { CheckServer } from './content-check-settings.ts';
import type { CheckInput, ContentChecker, ContentVerdict } from './content-verdict.ts';

/** Llama Guard 3's hazard categories (MLCommons' taxonomy), by the code it replies with. */
const guardCategories: Readonly<Record<string, string>> = {
  S1: 'violent crimes',
  S2: 'non-violent crimes',
  S3: 'sex-related crimes',
  S4: 'child sexual exploitation',
  S5: 'defamation',
  S6: 'specialized advice',
  S7: 'privacy',
  S8: 'intellectual property',
  S9: 'indiscriminate weapons',
  S10: 'hate',
  S11: 'suicide and self-harm',
  S12: 'sexual content',
  S13: 'elections',
  S14: 'code interpreter abuse',
};

export function guardCheck(server: CheckServer): ContentChecker {
  const transport = createOpenAITransport({ ...server, maxRetryWaitSeconds: server.timeoutSeconds });
  return {
    kind: 'guard',
    async check(input, signal = new AbortController().signal) {
      let reply: unknown;
      try {
        // A verdict is a word and a line of codes; temperature 0, as the model's own settings say.
        reply = await transport.send(
          { model: server.model, messages: guardMessages(input), temperature: 0, max_tokens: 20 },
          signal,
        );
      } catch (error) {
        if (signal.aborted) throw error;
        return { outcome: 'unavailable', detail: describeError(error) };
      }
      const content = (reply as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message
        ?.content;
      return typeof content === 'string'
        ? readGuardVerdict(content)
        : { outcome: 'unavailable', detail: 'the guard model replied without text' };
    },
  };
}

/** The conversation to judge: the question as the user's turn; an answer as the assistant's turn after it. */
function guardMessages(input: CheckInput): { role: 'user' | 'assistant'; content: string }[] {
  if (input.target === 'question') return [{ role: 'user', content: input.text }];
  return [
    { role: 'user', content: input.question ?? '' },
    { role: 'assistant', content: input.text },
  ];
}

/** `safe`, or `unsafe` then the codes; anything else is no verdict. */
export function readGuardVerdict(content: string): ContentVerdict {
  const [first = '', second = ''] = content.trim().split('\n');
  const verdict = first.trim().toLowerCase();
  if (verdict === 'safe') return { outcome: 'passed' };
  if (verdict !== 'unsafe')
    return { outcome: 'unavailable', detail: `the guard model said neither safe nor unsafe: "${first.slice(0, 40)}"` };
  const codes = second
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter(Boolean);
  return { outcome: 'flagged', categories: codes.map((code) => guardCategories[code] ?? code), scores: {} };
}
