/** Which standard OpenTelemetry variables turn the export on, and how it is set up from them. */
import { describe, expect, it } from 'vitest';
import { telemetrySettings } from '../../src/telemetry/telemetry-settings.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const read = (env: Record<string, string>) => {
  const { logger, lines } = recordingLogger();
  return { settings: telemetrySettings(env, logger), lines };
};

describe('the OpenTelemetry variables', () => {
  it('turn nothing on without an endpoint, with a blank one, or with OTEL_SDK_DISABLED=true', () => {
    expect(read({}).settings).toBeNull();
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_SERVICE_NAME: 'bot' }).settings).toBeNull();
    expect(
      read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' }).settings,
    ).toBeNull();
  });

  it('export traces and metrics to the shared endpoint, over http/protobuf unless told otherwise', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).settings).toEqual({
      tracesProtocol: 'http/protobuf',
      metricsProtocol: 'http/protobuf',
      metrics: true,
      captureContent: false,
      latestConventions: false,
      metricIntervalMs: 60_000,
    });
    expect(
      read({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
        OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'True',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
      }).settings,
    ).toMatchObject({
      tracesProtocol: 'http/json',
      metricsProtocol: 'http/protobuf',
      captureContent: true,
      latestConventions: true,
      metricIntervalMs: 5000,
    });
  });

  it('export traces alone to a traces endpoint, metrics only with an endpoint of their own', () => {
    const traces = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' };
    expect(read(traces).settings).toMatchObject({ metrics: false });
    expect(
      read({ ...traces, OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:4318/v1/metrics' }).settings,
    ).toMatchObject({ metrics: true });
  });

  it('fall back to http/protobuf from gRPC, and say so', () => {
    const { settings, lines } = read({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(settings).toMatchObject({ tracesProtocol: 'http/protobuf', metricsProtocol: 'http/protobuf' });
    expect(lines.map((line) => [line.level, line.fields.protocol])).toEqual([
      ['warn', 'grpc'],
      ['warn', 'grpc'],
    ]);
  });
});
