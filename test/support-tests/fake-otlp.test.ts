/**
 * The fake OTLP receiver's own contract (test/support/fake-otlp.ts): what the SDK's exporters send
 * is read alike over both protocols, and a body that breaks the OTLP schema is refused and makes
 * `close()` throw, so that a test of the export cannot pass on a malformed request.
 */
import { describe, expect, it } from 'vitest';
import { startFakeOtlp } from '../support/fake-otlp.ts';

const span = {
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  name: 'chat gpt-4.1-mini',
  kind: 3,
  startTimeUnixNano: '1544712660000000000',
  endTimeUnixNano: '1544712661000000000',
  attributes: [{ key: 'gen_ai.usage.input_tokens', value: { intValue: '100' } }],
};
const request = (spans: object[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

async function post(url: string, body: string | Uint8Array, contentType: string) {
  const response = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return response.status;
}

describe('the fake OTLP receiver', () => {
  it('reads an OTLP/JSON request into spans, ids in hex', async () => {
    const otlp = await startFakeOtlp();
    expect(await post(otlp.url, JSON.stringify(request([span])), 'application/json')).toBe(200);
    expect(otlp.spans()).toMatchObject([
      { traceId: span.traceId, spanId: span.spanId, name: 'chat gpt-4.1-mini', kind: 3, attributes: span.attributes },
    ]);
    await otlp.close();
  });

  it('refuses a JSON field the schema does not have, or of the wrong kind, and close() throws', async () => {
    const otlp = await startFakeOtlp();
    expect(await post(otlp.url, JSON.stringify(request([{ ...span, tokens: 3 }])), 'application/json')).toBe(400);
    expect(await post(otlp.url, JSON.stringify(request([{ ...span, kind: 'client' }])), 'application/json')).toBe(400);
    expect(await post(otlp.url, JSON.stringify(request([{ ...span, name: 7 }])), 'application/json')).toBe(400);
    await expect(otlp.close()).rejects.toThrow(/has no such field[\s\S]*not a value of SpanKind[\s\S]*is not a string/);
  });

  it('refuses bytes that are not an ExportTraceServiceRequest', async () => {
    const otlp = await startFakeOtlp();
    expect(await post(otlp.url, new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), 'application/x-protobuf')).toBe(
      400,
    );
    await expect(otlp.close()).rejects.toThrow(/schema/);
  });
});
