import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/agent/model-error.ts';
import { maxResponseBytes } from '../../src/model-servers/openai-transport.ts';
import { runOnce } from '../support/agent-harness.ts';
import { type ScriptedModel, apiError, finalAnswer, startScriptedModel } from '../support/fake-model.ts';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
});

/** The failure a run ended with, as a ModelError. */
function modelError(run: { error: Error | null }): ModelError {
  expect(run.error).toBeInstanceOf(ModelError);
  return run.error as ModelError;
}

describe('model service errors', () => {
  it('lets the SDK retry a short rate limit, honouring Retry-After, with no retry layer of ours on top', async () => {
    model.enqueue(apiError(429, 'Rate limit reached', { headers: { 'retry-after-ms': '50' } }), finalAnswer('Hello.'));

    const run = await runOnce(model);

    expect(run.status).toBe('answered');
    expect(model.attempts).toBe(2);
    expect(run.steps).toBe(1);
  });

  it('reports a rate limit whose wait is longer than the limit, without sleeping through it', async () => {
    model.enqueue(apiError(429, 'Rate limit reached', { headers: { 'retry-after': '3600' } }));

    const run = await runOnce(model, { client: { maxRetryWaitSeconds: 30 } });

    expect(model.attempts).toBe(1);
    expect(run.status).toBe('failed');
    const error = modelError(run);
    expect(error.kind).toBe('rate-limited');
    expect(error.retryAfterSeconds).toBe(3600);
    expect(run.userMessage).toBe('The model is rate-limited right now. Please try again in 60 minutes.');
    expect(run.events.at(-1)).toMatchObject({ type: 'run-end', status: 'failed', errorCode: 'model-rate-limited' });
  });

  it('retries server errors the configured number of times, then reports the service unavailable', async () => {
    const unavailable = apiError(503, 'overloaded', { headers: { 'retry-after-ms': '10' } });
    model.enqueue(unavailable, unavailable, unavailable);

    const run = await runOnce(model, { client: { maxRetries: 2 } });

    expect(model.attempts).toBe(3);
    expect(modelError(run).kind).toBe('unavailable');
    expect(run.userMessage).toMatch(/not answering right now/);
  });

  it('does not retry a context that is too long, and says so', async () => {
    model.enqueue(
      apiError(400, "This model's maximum context length is 128000 tokens.", { code: 'context_length_exceeded' }),
    );

    const run = await runOnce(model);

    expect(model.attempts).toBe(1);
    expect(modelError(run).kind).toBe('context-too-long');
    expect(run.userMessage).toMatch(/too long for the model/);
  });

  it('recognizes a context too long from servers that only say it in words', async () => {
    model.enqueue(apiError(400, 'Requested tokens (9000) exceed context window of 8192'));

    const run = await runOnce(model);

    expect(modelError(run).kind).toBe('context-too-long');
  });

  it('does not retry bad credentials, and tells the operator what to check', async () => {
    model.enqueue(apiError(401, 'Incorrect API key provided: sk-test.', { code: 'invalid_api_key' }));

    const run = await runOnce(model);

    expect(model.attempts).toBe(1);
    expect(modelError(run).kind).toBe('bad-credentials');
    expect(run.userMessage).toMatch(/OPENAI_API_KEY/);
    // The user's message never carries what the server said (it may echo the key).
    expect(run.userMessage).not.toContain('sk-test');
  });

  it('names an unknown model', async () => {
    model.enqueue(apiError(404, 'The model `gpt-9` does not exist', { code: 'model_not_found' }));

    const run = await runOnce(model);

    expect(modelError(run).kind).toBe('model-not-found');
    expect(run.userMessage).toMatch(/OPENAI_MODEL/);
  });

  it('reports a body that is not JSON as a reply the bot could not read', async () => {
    model.enqueue({ status: 200, body: 'this is not json' });

    const run = await runOnce(model);

    expect(modelError(run).kind).toBe('invalid-response');
  });

  it('refuses a response past maxResponseBytes, with or without its length announced, and does not retry it', async () => {
    const huge = `{"padding": "${'x'.repeat(maxResponseBytes)}"}`;
    // Without Content-Length (chunked), the body is read up to the cap; with it, not at all.
    model.enqueue(
      { status: 200, body: huge },
      { status: 200, body: huge, headers: { 'content-length': String(huge.length) } },
    );

    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const run = await runOnce(model, { client: { maxRetries: 2 } });
      expect(model.attempts).toBe(attempt);
      expect(modelError(run).kind).toBe('invalid-response');
      expect(modelError(run).message).toMatch(/passed 16777216 bytes/);
    }
  });

  it('reports a connection reset after the retries as the service unavailable', async () => {
    model.enqueue({ reset: true }, { reset: true });

    const run = await runOnce(model, { client: { maxRetries: 1 } });

    expect(model.attempts).toBe(2);
    expect(modelError(run).kind).toBe('unavailable');
  });

  it('gives up on a response that never comes after the request time limit', async () => {
    model.enqueue({ hang: true });

    const run = await runOnce(model, { client: { maxRetries: 0, timeoutSeconds: 1 } });

    expect(modelError(run).kind).toBe('unavailable');
  });
});

describe('waits the model service asks for', () => {
  it('honours Retry-After: the retry comes no sooner than asked', async () => {
    model.enqueue(
      apiError(429, 'Rate limit reached', { headers: { 'retry-after-ms': '1200' } }),
      finalAnswer('Hello.'),
    );

    await runOnce(model);

    // The SDK's own backoff would retry after at most 0.5 s; Retry-After asked for 1.2 s.
    const [first, second] = model.attemptTimes;
    expect(second! - first!).toBeGreaterThanOrEqual(1150);
  });

  it('does not sleep through a long wait on any retried status, 408 included', async () => {
    model.enqueue(apiError(408, 'Request timeout', { headers: { 'retry-after': '600' } }));

    const run = await runOnce(model, { client: { maxRetryWaitSeconds: 1 } });

    expect(model.attempts).toBe(1);
    expect(modelError(run).kind).toBe('unavailable');
  });

  it('stops at once when the run is aborted while the client waits to retry', async () => {
    const controller = new AbortController();
    model.enqueue(() => {
      setTimeout(() => controller.abort(), 50);
      return apiError(429, 'Rate limit reached', { headers: { 'retry-after': '60' } });
    });

    // Without watching the signal, this would wait out the 60 s and fail on the test's time limit.
    const run = await runOnce(model, { signal: controller.signal, client: { maxRetryWaitSeconds: 120 } });

    expect(run.stopReason).toBe('aborted');
    expect(model.attempts).toBe(1);
  });

  it('keeps to the run time limit while the client waits to retry', async () => {
    model.enqueue(apiError(503, 'overloaded', { headers: { 'retry-after': '60' } }));

    const run = await runOnce(model, { settings: { runTimeoutMs: 200 }, client: { maxRetryWaitSeconds: 120 } });

    expect(run.stopReason).toBe('time-limit');
  });

  it('tells a wrong base URL (a 404 that is not about the model) from an unknown model', async () => {
    model.enqueue({ status: 404, body: '404 page not found' });

    const run = await runOnce(model);

    expect(modelError(run).kind).toBe('wrong-endpoint');
    expect(run.userMessage).toMatch(/OPENAI_BASE_URL/);
  });

  it('keeps a key the server echoes out of the run-end event and the error', async () => {
    model.enqueue(apiError(401, 'Incorrect API key provided: sk-test-abcdefghijkl. You can find your key at …'));

    const run = await runOnce(model, { client: { apiKey: 'sk-test-abcdefghijkl' } });

    const end = run.events.at(-1);
    expect(JSON.stringify(end)).not.toContain('abcdefghijkl');
    expect(run.error?.message).not.toContain('abcdefghijkl');
    expect(run.error?.message).toContain('[redacted]');
  });
});
