/**
 * The OpenTelemetry SDK, set up for the runs' traces and metrics: a tracer provider with a batch
 * processor and a meter provider with a periodic reader, each exporting over OTLP/HTTP in the
 * protocol asked for. The exporters read the endpoint, headers, timeout and compression from the
 * standard variables themselves; the resource takes OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 * Nothing is registered globally: only the runs' sink uses these providers. Loaded by
 * start-telemetry.ts only when an endpoint is set.
 */
import { ValueType } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { AgentEventSink } from '../agent/events.ts';
import type { Logger } from '../agent/logger.ts';
import { modelServersSeen, type OfferedModel } from './model-servers-seen.ts';
import { runTraceSink } from './run-trace-sink.ts';
import type { TelemetrySettings } from './telemetry-settings.ts';

/** What the export needs to know of this process. */
export interface TelemetryScope {
  /** `service.instance.id`: the instance record's id (src/run-log/instance.ts). */
  instanceId: string;
  models: readonly OfferedModel[];
}

/** The runs' sink, and the shutdown that sends what is left. */
export interface Telemetry {
  sink: AgentEventSink;
  shutdown(): Promise<void>;
}

/** Bucket boundaries the conventions advise (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/). */
const tokenBuckets = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const durationBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** `service.name` unless OTEL_SERVICE_NAME says otherwise; `gen_ai.agent.name` of the runs; the tracer's and meter's scope. */
const botName = 'discord-agent-bot';

/** How long the shutdown waits for the last export. */
const shutdownMs = 3_000;

export function openTelemetryPipeline(settings: TelemetrySettings, scope: TelemetryScope, logger: Logger): Telemetry {
  reportExportFailures(logger);
  // Later resources win a merge: the operator's variables over ours, ours over the SDK's defaults.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': botName, 'service.instance.id': scope.instanceId }))
    .merge(detectResources({ detectors: [envDetector] }));
  const traceExporter = settings.tracesProtocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter: traceExporter })],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: settings.metrics
      ? [
          new PeriodicExportingMetricReader({
            exporter:
              settings.metricsProtocol === 'http/json' ? new JsonMetricExporter() : new ProtobufMetricExporter(),
            exportIntervalMillis: settings.metricIntervalMs,
          }),
        ]
      : [],
  });
  const meter = meterProvider.getMeter(botName);
  const sink = runTraceSink(
    {
      tracer: tracerProvider.getTracer(botName),
      tokenUsage: meter.createHistogram('gen_ai.client.token.usage', {
        unit: '{token}',
        description: 'Number of input and output tokens used.',
        advice: { explicitBucketBoundaries: tokenBuckets },
      }),
      operationDuration: meter.createHistogram('gen_ai.client.operation.duration', {
        unit: 's',
        description: 'GenAI operation duration.',
        advice: { explicitBucketBoundaries: durationBuckets },
      }),
      // The GenAI conventions give cached input tokens a span attribute
      // (gen_ai.usage.cache_read.input_tokens) but no token type of gen_ai.client.token.usage: a
      // counter of our own, with the same attributes as the token usage.
      cachedInputTokens: meter.createCounter('discord_agent.client.cache_read.input_tokens', {
        unit: '{token}',
        description: 'Input tokens the model servers took from their caches, where they said.',
        valueType: ValueType.INT,
      }),
      runs: meter.createCounter('discord_agent.runs', {
        unit: '{run}',
        description: 'Agent runs, by how they ended.',
        valueType: ValueType.INT,
      }),
    },
    {
      agentName: botName,
      captureContent: settings.captureContent,
      latestConventions: settings.latestConventions,
      serverOf: modelServersSeen(scope.models, settings.latestConventions),
    },
  );
  return {
    sink,
    // Each flushes what it holds and stops its exporter; one failing does not keep the other's. An
    // unreachable collector holds the process no longer than `shutdownMs`: the bot's exit waits on it.
    shutdown: async () => {
      const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), shutdownMs).unref());
      const ended = await Promise.race([
        Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]),
        late,
      ]);
      const failures =
        ended === 'late'
          ? [`no answer from the collector within ${shutdownMs} ms at shutdown`]
          : ended.flatMap((result) => (result.status === 'rejected' ? [messageOf(result.reason)] : []));
      for (const error of failures) logger.warn({ error }, exportFailed);
    },
  };
}

/** How often a failing export is told in the log, at most (a collector down would fail every few seconds). */
const failureReportMs = 5 * 60_000;

/**
 * The SDK hands the errors of its exports (a collector unreachable, a 401) to one global handler
 * (https://opentelemetry.io/docs/specs/otel/error-handling/), which by default says nothing: the
 * operator is told, now and then. The SDK's messages name the status or the socket error, never
 * the request's headers.
 */
function reportExportFailures(logger: Logger): void {
  let lastReport = -Infinity;
  setGlobalErrorHandler((error) => {
    if (performance.now() - lastReport < failureReportMs) return;
    lastReport = performance.now();
    logger.warn({ error: messageOf(error), nextReportIn: '5 minutes at the soonest' }, exportFailed);
  });
}

const exportFailed = 'OpenTelemetry export failed';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
