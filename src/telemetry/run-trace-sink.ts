/**
 * A run as an OpenTelemetry trace in the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/): an `invoke_agent` span for the run, a
 * `chat {model}` span per model call and an `execute_tool {name}` span per tool call under it, and
 * the GenAI client metrics. Hears the run's events like any sink (src/agent/events.ts); the loop
 * knows nothing of it. Loaded only when an OTLP endpoint is set (start-telemetry.ts).
 */
import {
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type {
  AgentEvent,
  AgentEventSink,
  ModelCallEvent,
  RunEndEvent,
  RunStartEvent,
  ToolErrorEvent,
} from '../agent/events.ts';
import type { TokenUsage } from '../agent/messages.ts';
import type { ModelServerSeen } from './model-servers-seen.ts';

/** The instruments a run's events are recorded with (otel-pipeline.ts makes them). */
export interface RunInstruments {
  tracer: Tracer;
  /** `gen_ai.client.token.usage`, by `gen_ai.token.type`. */
  tokenUsage: Histogram;
  /** `gen_ai.client.operation.duration`, in seconds. */
  operationDuration: Histogram;
  /** Input tokens the servers took from their caches, where they said. */
  cachedInputTokens: Counter;
  /** Runs by how they ended. */
  runs: Counter;
}

export interface RunTraceOptions {
  /** `gen_ai.agent.name` of the runs. */
  agentName: string;
  /** Message contents (answers, tool arguments and results) in the spans. */
  captureContent: boolean;
  /** The latest GenAI conventions (`gen_ai.provider.name`) rather than v1.36's (`gen_ai.system`). */
  latestConventions: boolean;
  serverOf(model: string): ModelServerSeen | null;
}

interface OpenRun {
  span: Span;
  context: Context;
  /** What every span and metric of the run says of its model. */
  model: Attributes;
  tools: Map<string, Span>;
}

/** One sink for every run of the process: each run's spans are kept by its id until it ends. */
export function runTraceSink(instruments: RunInstruments, options: RunTraceOptions): AgentEventSink {
  const runs = new Map<string, OpenRun>();
  return (event: AgentEvent) => {
    if (event.type === 'run-start') {
      runs.set(event.runId, startRun(instruments.tracer, options, event));
      return;
    }
    const run = runs.get(event.runId);
    if (!run) return;
    switch (event.type) {
      case 'model-call':
        return modelCall(instruments, options, run, event);
      case 'tool-call': {
        const span = instruments.tracer.startSpan(
          `execute_tool ${event.name}`,
          { kind: SpanKind.INTERNAL, attributes: toolAttributes(event.name, event.callId) },
          run.context,
        );
        if (options.captureContent) span.setAttribute('gen_ai.tool.call.arguments', event.arguments);
        run.tools.set(event.callId, span);
        return;
      }
      case 'tool-result': {
        const span = run.tools.get(event.callId);
        run.tools.delete(event.callId);
        if (options.captureContent) span?.setAttribute('gen_ai.tool.call.result', event.result);
        return span?.end();
      }
      case 'tool-error':
        return toolError(instruments.tracer, run, event);
      case 'final-answer':
        if (options.captureContent)
          run.span.setAttribute('gen_ai.output.messages', outputMessages(event.answer.answer, null));
        return;
      case 'run-end':
        runs.delete(event.runId);
        return endRun(instruments, run, event);
    }
  };
}

function startRun(tracer: Tracer, options: RunTraceOptions, event: RunStartEvent): OpenRun {
  const server = options.serverOf(event.model);
  const model: Attributes = {
    'gen_ai.request.model': event.model,
    ...(server && {
      [options.latestConventions ? 'gen_ai.provider.name' : 'gen_ai.system']: server.provider,
      'server.address': server.address,
      'server.port': server.port,
    }),
  };
  // In-process agent: INTERNAL, named for the agent
  // (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/#invoke-agent-internal-span).
  const span = tracer.startSpan(`invoke_agent ${options.agentName}`, {
    kind: SpanKind.INTERNAL,
    startTime: event.at,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': options.agentName,
      'gen_ai.conversation.id': event.conversationId,
      ...model,
    },
  });
  return { span, context: trace.setSpan(ROOT_CONTEXT, span), model, tools: new Map() };
}

/** A model call ends as it is told: its span starts its duration before now. */
function modelCall(instruments: RunInstruments, options: RunTraceOptions, run: OpenRun, event: ModelCallEvent) {
  const now = Date.now();
  const operation = { 'gen_ai.operation.name': 'chat', ...run.model };
  const span = instruments.tracer.startSpan(
    `chat ${String(run.model['gen_ai.request.model'])}`,
    { kind: SpanKind.CLIENT, startTime: now - event.durationMs, attributes: operation },
    run.context,
  );
  if (event.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [event.finishReason]);
  if (event.usage) {
    span.setAttributes({
      'gen_ai.usage.input_tokens': event.usage.promptTokens,
      'gen_ai.usage.output_tokens': event.usage.completionTokens,
      // Of the input tokens, those the server took from its cache, where it said (experimental in the
      // GenAI conventions: https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/).
      ...cacheRead(event.usage),
    });
    instruments.tokenUsage.record(event.usage.promptTokens, { ...operation, 'gen_ai.token.type': 'input' });
    instruments.tokenUsage.record(event.usage.completionTokens, { ...operation, 'gen_ai.token.type': 'output' });
    if (event.usage.cachedPromptTokens !== undefined)
      instruments.cachedInputTokens.add(event.usage.cachedPromptTokens, operation);
  }
  if (options.captureContent)
    span.setAttribute(
      'gen_ai.output.messages',
      outputMessages(event.message.content, event.message.tool_calls ?? null),
    );
  span.end(now);
  instruments.operationDuration.record(event.durationMs / 1000, operation);
}

/** The cached input tokens' attribute, where the server said how many (nothing where it did not). */
function cacheRead(usage: TokenUsage): Record<string, number> {
  return usage.cachedPromptTokens === undefined
    ? {}
    : { 'gen_ai.usage.cache_read.input_tokens': usage.cachedPromptTokens };
}

/** A refused or failed tool call: its span (made now for a call that never started) ends in error. */
function toolError(tracer: Tracer, run: OpenRun, event: ToolErrorEvent) {
  const now = Date.now();
  const span =
    run.tools.get(event.callId) ??
    tracer.startSpan(
      `execute_tool ${event.name}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: now - event.durationMs,
        attributes: toolAttributes(event.name, event.callId),
      },
      run.context,
    );
  run.tools.delete(event.callId);
  // The kind, not the observation: the observation may quote what people wrote.
  span.setAttribute('error.type', event.kind);
  span.setStatus({ code: SpanStatusCode.ERROR, message: event.kind });
  span.end(now);
}

function endRun(instruments: RunInstruments, run: OpenRun, event: RunEndEvent) {
  for (const span of run.tools.values()) span.end();
  run.span.setAttributes({
    'gen_ai.usage.input_tokens': event.usage.promptTokens,
    'gen_ai.usage.output_tokens': event.usage.completionTokens,
    ...cacheRead(event.usage),
    'discord_agent.run.status': event.status,
    'discord_agent.run.steps': event.steps,
    ...(event.stopReason && { 'discord_agent.run.stop_reason': event.stopReason }),
  });
  if (event.status === 'failed') {
    const errorType = event.errorCode ?? 'failed';
    run.span.setAttribute('error.type', errorType);
    // The operator's detail, which holds no secrets (RunEndEvent.error).
    run.span.setStatus({ code: SpanStatusCode.ERROR, message: event.error ?? errorType });
  }
  run.span.end();
  instruments.runs.add(1, {
    'discord_agent.run.status': event.status,
    ...(event.stopReason && { 'discord_agent.run.stop_reason': event.stopReason }),
  });
}

function toolAttributes(name: string, callId: string): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': callId,
    'gen_ai.tool.type': 'function',
  };
}

/**
 * The assistant's turn in the conventions' message shape
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-output-messages.json), as JSON text.
 */
function outputMessages(
  text: string | null,
  calls: readonly { id: string; function: { name: string; arguments: string } }[] | null,
): string {
  const parts = [
    ...(text ? [{ type: 'text', content: text }] : []),
    ...(calls ?? []).map((call) => ({
      type: 'tool_call',
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    })),
  ];
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: calls?.length ? 'tool_call' : 'stop' }]);
}
