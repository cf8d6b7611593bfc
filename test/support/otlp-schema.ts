/**
 * The OTLP export requests, read against the OTLP schema: the .proto files of
 * open-telemetry/opentelemetry-proto v1.9.0 (Apache-2.0, LICENSE beside them in otlp-proto/),
 * loaded with protobufjs. Protobuf bodies are decoded with them; JSON bodies (OTLP/JSON:
 * https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) are checked field by field
 * against the same types, then read into the same shape, so that a test reads both protocols alike.
 */
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

export type Signal = 'traces' | 'metrics';

const protoRoot = fileURLToPath(new URL('./otlp-proto/', import.meta.url));
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => `${protoRoot}${target}`;
root.loadSync([
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
]);
root.resolveAll();

const requestTypes: Record<Signal, protobuf.Type> = {
  traces: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
  metrics: root.lookupType('opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest'),
};

/** int64 as decimal text, enums as numbers, ids (bytes) as hex, as OTLP/JSON writes them. */
const readAs: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: Array, defaults: false };

/** A protobuf request body, decoded (throws on bytes that are not the request type). */
export function decodeProtobuf(signal: Signal, body: Buffer): unknown {
  const type = requestTypes[signal];
  return hexBytes(type.toObject(type.decode(body), readAs));
}

/** A JSON request body, checked against the schema (throws on a field it does not have, or of the wrong kind), then read. */
export function decodeJson(signal: Signal, text: string): unknown {
  const type = requestTypes[signal];
  const json: unknown = JSON.parse(text);
  checkMessage(type, json, signal);
  // OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping would use base64.
  const message = type.fromObject(hexIdsToBytes(json) as Record<string, unknown>);
  return hexBytes(type.toObject(message, readAs));
}

/** Every field of a JSON message is one of its type's, of the right kind (lowerCamelCase or the proto's own name). */
function checkMessage(type: protobuf.Type, value: unknown, path: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${path}: expected an object for ${type.name}`);
  for (const [key, fieldValue] of Object.entries(value)) {
    const field =
      type.fields[key] ?? Object.values(type.fields).find((candidate) => candidate.options?.json_name === key);
    const named = field ?? type.fieldsArray.find((candidate) => snakeCase(candidate.name) === key);
    if (!named) throw new Error(`${path}.${key}: ${type.name} has no such field`);
    const values = named.repeated ? fieldValue : [fieldValue];
    if (!Array.isArray(values)) throw new Error(`${path}.${key}: expected an array`);
    values.forEach((item: unknown, index) =>
      checkValue(named, item, `${path}.${key}${named.repeated ? `[${index}]` : ''}`),
    );
  }
}

function checkValue(field: protobuf.Field, value: unknown, path: string): void {
  if (value === null) return;
  if (field.resolvedType instanceof protobuf.Type) return checkMessage(field.resolvedType, value, path);
  if (field.resolvedType instanceof protobuf.Enum) {
    const names = field.resolvedType.values;
    if (typeof value === 'number' ? Object.values(names).includes(value) : typeof value === 'string' && value in names)
      return;
    throw new Error(`${path}: not a value of ${field.resolvedType.name}`);
  }
  const kind = scalarKinds[field.type];
  const ok =
    kind === 'int64'
      ? (typeof value === 'string' && /^-?\d+$/.test(value)) || Number.isInteger(value)
      : kind === 'number'
        ? typeof value === 'number' || (typeof value === 'string' && /^(NaN|-?Infinity)$/.test(value))
        : typeof value === kind;
  if (!ok) throw new Error(`${path}: ${JSON.stringify(value)} is not a ${field.type}`);
}

const scalarKinds: Record<string, 'int64' | 'number' | 'string' | 'boolean'> = {
  double: 'number',
  float: 'number',
  int32: 'number',
  uint32: 'number',
  sint32: 'number',
  fixed32: 'number',
  sfixed32: 'number',
  int64: 'int64',
  uint64: 'int64',
  sint64: 'int64',
  fixed64: 'int64',
  sfixed64: 'int64',
  string: 'string',
  bytes: 'string',
  bool: 'boolean',
};

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const idFields = new Set(['traceId', 'spanId', 'parentSpanId', 'trace_id', 'span_id', 'parent_span_id']);

/** The JSON with its hex ids as bytes, for protobufjs's `fromObject`. */
function hexIdsToBytes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIdsToBytes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      idFields.has(key) && typeof item === 'string' ? Buffer.from(item, 'hex') : hexIdsToBytes(item),
    ]),
  );
}

/** Bytes read as arrays of numbers, written as hex (ids are the only bytes OTLP traces and metrics carry). */
function hexBytes(value: unknown, key = ''): unknown {
  if (Array.isArray(value) && idFields.has(key)) return Buffer.from(value as number[]).toString('hex');
  if (Array.isArray(value)) return value.map((item) => hexBytes(item));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, hexBytes(item, name)]));
}
