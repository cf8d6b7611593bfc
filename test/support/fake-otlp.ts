/**
 * A fake OTLP/HTTP receiver on 127.0.0.1, as an OpenTelemetry collector is one
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp): `POST /v1/traces` and `POST /v1/metrics`,
 * protobuf (`application/x-protobuf`) or JSON (`application/json`), gzipped or not. Each body is
 * decoded against the OTLP schema (otlp-schema.ts); one that does not fit is answered 400 and
 * recorded as a failure, which `close()` throws. It keeps what it received, read alike for both
 * protocols, and the headers that came with it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { decodeJson, decodeProtobuf, type Signal } from './otlp-schema.ts';

/** One export request as received. */
export interface OtlpExport {
  signal: Signal;
  protocol: 'http/protobuf' | 'http/json';
  headers: IncomingHttpHeaders;
  /** The request, in OTLP/JSON's shape whatever the protocol (ids in hex, int64 as text). */
  body: { resourceSpans?: ResourceItems[]; resourceMetrics?: ResourceItems[] };
}

interface ResourceItems {
  resource?: { attributes?: KeyValue[] };
  scopeSpans?: { spans?: OtlpSpan[] }[];
  scopeMetrics?: { metrics?: OtlpMetric[] }[];
}

export interface KeyValue {
  key: string;
  value?: AnyValue;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client (SpanKind). */
  kind?: number;
  attributes?: KeyValue[];
  /** `code` 2 is an error (Status.StatusCode). */
  status?: { code?: number; message?: string };
}

export interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints?: { attributes?: KeyValue[]; count?: string; sum?: number }[] };
  sum?: { dataPoints?: { attributes?: KeyValue[]; asInt?: string; asDouble?: number }[] };
}

export interface FakeOtlp {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add /v1/traces, /v1/metrics). */
  url: string;
  exports: OtlpExport[];
  /** Every span received, in order, with the attributes of its resource. */
  spans(): (OtlpSpan & { resource: Record<string, unknown> })[];
  /** Every metric received, in order. */
  metrics(): OtlpMetric[];
  /** Throws for bodies that did not fit the schema; then stops. */
  close(): Promise<void>;
}

/** Attributes as a plain record: a value's one field (int64 as a number, arrays as arrays). */
export function attributesOf(keyValues: readonly KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((keyValues ?? []).map(({ key, value }) => [key, plain(value)]));
}

function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

export async function startFakeOtlp(): Promise<FakeOtlp> {
  const exports: OtlpExport[] = [];
  const failures: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const signal = ({ '/v1/traces': 'traces', '/v1/metrics': 'metrics' } as const)[request.url ?? ''];
      const json = request.headers['content-type']?.startsWith('application/json') ?? false;
      try {
        if (request.method !== 'POST' || !signal) throw new Error(`unexpected ${request.method} ${request.url}`);
        const raw = Buffer.concat(chunks);
        const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        exports.push({
          signal,
          protocol: json ? 'http/json' : 'http/protobuf',
          headers: request.headers,
          body: (json ? decodeJson(signal, body.toString('utf8')) : decodeProtobuf(signal, body)) as OtlpExport['body'],
        });
        // A full success: an empty Export*ServiceResponse (no partial_success), in the request's encoding.
        response.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' });
        response.end(json ? '{}' : '');
      } catch (error) {
        failures.push(`${request.url}: ${(error as Error).message}`);
        response.writeHead(400, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ message: (error as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const resources = (signal: Signal) =>
    exports
      .filter((item) => item.signal === signal)
      .flatMap((item) => item.body.resourceSpans ?? item.body.resourceMetrics ?? []);
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () =>
      resources('traces').flatMap((resource) =>
        (resource.scopeSpans ?? []).flatMap((scope) =>
          (scope.spans ?? []).map((span) => ({ ...span, resource: attributesOf(resource.resource?.attributes) })),
        ),
      ),
    metrics: () =>
      resources('metrics').flatMap((resource) => (resource.scopeMetrics ?? []).flatMap((scope) => scope.metrics ?? [])),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (failures.length > 0)
        throw new Error(`the OTLP receiver got bodies that break the schema:\n${failures.join('\n')}`);
    },
  };
}
