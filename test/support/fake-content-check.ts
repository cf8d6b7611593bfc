/**
 * A fake content check on 127.0.0.1: OpenAI's moderation endpoint (`POST /v1/moderations`, each
 * request checked against the official schema, specs/openai-moderations.schema.json) and a guard
 * model (`POST /v1/chat/completions`, answering as Llama Guard 3 does: `safe`, or `unsafe` and a
 * line of category codes). A text holding `flagWord` is flagged; `down` makes every request fail
 * with a 500, as a server in trouble does; `hanging` leaves every request unanswered. It records
 * every request.
 */
import type { ContentCheckSettings } from '../../src/content-check/content-check-settings.ts';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { chatRequestProblems } from './openai-conformance.ts';
import { type ModelServer, sendJson, startModelServer } from './fake-model/server.ts';

const schema = JSON.parse(
  readFileSync(new URL('./specs/openai-moderations.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, 'moderations');
const validRequest = ajv.compile({ $ref: 'moderations#/$defs/CreateModerationRequest' });
const validResponse = ajv.compile({ $ref: 'moderations#/$defs/CreateModerationResponse' });

export interface ModerationRequest {
  model: string;
  input: string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];
}

export interface GuardRequest {
  model: string;
  messages: { role: string; content: string }[];
}

export interface FakeContentCheck {
  /** Ends in /v1: CONTENT_CHECK_BASE_URL, or a MODELS_FILE model's base_url. */
  baseURL: string;
  moderationRequests: ModerationRequest[];
  guardRequests: GuardRequest[];
  /** While true, every request is answered with a 500 the client is told not to retry. */
  down: boolean;
  /** While true, no request is answered (until the fake closes): a check that hangs. */
  hanging: boolean;
  /** Requests the fake received, answered or not. */
  received: number;
  /** Images (their `data:` URLs) the moderation check flags, as it flags a text holding the flag word. */
  flaggedImages: Set<string>;
  close(): Promise<void>;
}

/** The text a moderation request carries, its parts joined. */
export function moderationText(request: ModerationRequest): string {
  return typeof request.input === 'string'
    ? request.input
    : request.input.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

export async function startFakeContentCheck(flagWord = 'FORBIDDEN'): Promise<FakeContentCheck> {
  const fake: FakeContentCheck = {
    baseURL: '',
    moderationRequests: [],
    guardRequests: [],
    down: false,
    hanging: false,
    received: 0,
    flaggedImages: new Set(),
    close: async () => {
      for (const response of held.splice(0)) response.destroy();
      await server.close('fake content check');
    },
  };
  const held: ServerResponse[] = [];
  const server: ModelServer = await startModelServer(({ request, response, body }) => {
    fake.received += 1;
    if (fake.hanging) return void held.push(response);
    if (fake.down)
      return sendJson(response, 500, { error: { message: 'the check is down' } }, { 'x-should-retry': 'false' });
    if (request.method === 'POST' && request.url === '/v1/moderations') {
      if (!validRequest(body))
        server.failures.push(`moderation request breaks the spec: ${ajv.errorsText(validRequest.errors)}`);
      fake.moderationRequests.push(body as ModerationRequest);
      const asked = body as ModerationRequest;
      const images =
        typeof asked.input === 'string'
          ? []
          : asked.input.flatMap((part) => (part.type === 'image_url' ? [part.image_url.url] : []));
      const flagged = moderationText(asked).includes(flagWord) || images.some((url) => fake.flaggedImages.has(url));
      return sendJson(response, 200, moderationReply(flagged, server));
    }
    if (request.method === 'POST' && request.url === '/v1/chat/completions') {
      const problems = chatRequestProblems(body);
      if (problems.length > 0) server.failures.push(`guard request breaks the spec: ${problems.join('; ')}`);
      const guard = body as GuardRequest;
      fake.guardRequests.push(guard);
      const verdict = guard.messages.at(-1)?.content.includes(flagWord) ? 'unsafe\nS1,S10' : 'safe';
      return sendJson(response, 200, guardReply(guard.model, verdict));
    }
    server.failures.push(`unexpected ${request.method} ${request.url}`);
    sendJson(response, 404, { error: { message: 'not found' } });
  });
  fake.baseURL = server.baseURL;
  return fake;
}

/** A moderation reply as OpenAI's omni-moderation sends it (one result), checked against the spec's response. */
function moderationReply(flagged: boolean, server: ModelServer): object {
  const names = [
    'hate',
    'hate/threatening',
    'harassment',
    'harassment/threatening',
    'illicit',
    'illicit/violent',
    'self-harm',
    'self-harm/intent',
    'self-harm/instructions',
    'sexual',
    'sexual/minors',
    'violence',
    'violence/graphic',
  ];
  const reply = {
    id: 'modr-fake',
    model: 'omni-moderation-latest',
    results: [
      {
        flagged,
        categories: Object.fromEntries(names.map((name) => [name, flagged && name === 'violence'])),
        category_scores: Object.fromEntries(names.map((name) => [name, flagged && name === 'violence' ? 0.91 : 0.01])),
        category_applied_input_types: Object.fromEntries(names.map((name) => [name, ['text']])),
      },
    ],
  };
  if (!validResponse(reply))
    server.failures.push(`the fake's own reply breaks the spec: ${ajv.errorsText(validResponse.errors)}`);
  return reply;
}

function guardReply(model: string, content: string): object {
  return {
    id: 'chatcmpl-guard',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  };
}

/** CONTENT_CHECK=moderations against this fake, as a test's bot is given it: an outage refuses. */
export function moderationsAt(check: Pick<FakeContentCheck, 'baseURL'>): ContentCheckSettings {
  return {
    kind: 'moderations',
    onError: 'refuse',
    server: {
      baseURL: check.baseURL,
      apiKey: null,
      model: 'omni-moderation-latest',
      timeoutSeconds: 10,
      maxRetries: 0,
    },
  };
}
