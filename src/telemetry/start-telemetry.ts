/**
 * The runs' export to OpenTelemetry, started by a composition root (main.ts, chat.ts) before its
 * runs: with an OTLP endpoint set, the SDK is loaded (a dynamic import, so that a start without one
 * loads none of it) and a sink for every run is made; without one, nothing.
 */
import type { Logger } from '../agent/logger.ts';
import { mergeEnvironment, readDotenv } from '../settings/config.ts';
import type { Telemetry, TelemetryScope } from './otel-pipeline.ts';
import { telemetrySettings } from './telemetry-settings.ts';

export type { Telemetry } from './otel-pipeline.ts';

/**
 * Null when no endpoint is set. The variables come from the environment, then `.env`, as every
 * setting does. The shutdown must be awaited before the process exits, or spans are lost.
 */
export async function startTelemetry(scope: TelemetryScope, logger: Logger): Promise<Telemetry | null> {
  const env = mergeEnvironment(process.env, readDotenv('.env'));
  const settings = telemetrySettings(env, logger);
  if (!settings) return null;
  // The SDK's exporters read their variables (endpoint, headers, …) from process.env alone.
  for (const [name, value] of Object.entries(env))
    if (name.startsWith('OTEL_') && value?.trim() && !process.env[name]?.trim()) process.env[name] = value;
  const { openTelemetryPipeline } = await import('./otel-pipeline.ts');
  const telemetry = openTelemetryPipeline(settings, scope, logger);
  // The endpoint and protocol only: OTEL_EXPORTER_OTLP_HEADERS may hold an API key, and is never logged.
  logger.info(
    {
      traces: settings.tracesProtocol,
      metrics: settings.metrics ? settings.metricsProtocol : 'off',
      messageContent: settings.captureContent,
    },
    'OpenTelemetry export on',
  );
  return telemetry;
}
