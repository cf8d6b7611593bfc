/**
 * Whether the runs are exported to OpenTelemetry, read from the standard variables the SDK and the
 * OTLP exporters read themselves (https://opentelemetry.io/docs/specs/otel/protocol/exporter/,
 * https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). This file
 * loads nothing of OpenTelemetry: with no endpoint set, nothing else in src/telemetry/ is loaded.
 */
import type { Logger } from '../agent/logger.ts';

/** What the export is started with; the rest (headers, timeouts, compression) the exporters read themselves. */
export interface TelemetrySettings {
  /** `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`; http/protobuf by default. */
  tracesProtocol: OtlpProtocol;
  metricsProtocol: OtlpProtocol;
  /** Whether metrics go out too: their own endpoint, or the shared one. */
  metrics: boolean;
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: message contents in the spans. */
  captureContent: boolean;
  /** `OTEL_SEMCONV_STABILITY_OPT_IN` lists `gen_ai_latest_experimental`: the latest GenAI conventions. */
  latestConventions: boolean;
  /** `OTEL_METRIC_EXPORT_INTERVAL` (ms), 60 s by default as the spec says. */
  metricIntervalMs: number;
}

type OtlpProtocol = 'http/protobuf' | 'http/json';

/**
 * The OpenTelemetry variables the README's settings table and `.env.example` list (a test checks),
 * besides the bot's own settings: read by the SDK and by this folder, not by src/settings/config.ts.
 * The SDK's other variables (per-signal headers, timeouts, OTEL_RESOURCE_ATTRIBUTES, …) work too.
 */
export const openTelemetryVariables = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_SERVICE_NAME',
  'OTEL_SEMCONV_STABILITY_OPT_IN',
  'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
] as const;

type Environment = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined) => value !== undefined && value.trim() !== '';

/** Null when no OTLP endpoint is set (or `OTEL_SDK_DISABLED=true`): nothing is exported or loaded. */
export function telemetrySettings(env: Environment, logger: Logger): TelemetrySettings | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const shared = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!shared && !set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return null;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    tracesProtocol: protocol(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL, logger),
    metricsProtocol: protocol(env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL, logger),
    metrics: shared || set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT),
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
    latestConventions: (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '')
      .split(',')
      .some((value) => value.trim() === 'gen_ai_latest_experimental'),
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
  };
}

/** The protocol asked for; gRPC is not offered (its packages are large), so it falls back, said once. */
function protocol(value: string | undefined, logger: Logger): OtlpProtocol {
  const asked = value?.trim() || 'http/protobuf';
  if (asked === 'http/protobuf' || asked === 'http/json') return asked;
  logger.warn(
    { protocol: asked },
    'OpenTelemetry: only http/protobuf and http/json are supported; using http/protobuf',
  );
  return 'http/protobuf';
}
