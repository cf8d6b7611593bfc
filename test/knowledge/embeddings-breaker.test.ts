import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEmbeddingsClient } from '../../src/knowledge/embeddings-client.ts';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '../support/fake-embeddings-server.ts';
import { documentOf, fileAdd, knowledgeWorld } from '../support/knowledge-world.ts';
import { recordingLogger } from '../support/recording-logger.ts';

let server: FakeEmbeddingsServer;
beforeEach(async () => {
  server = await startFakeEmbeddingsServer();
});
afterEach(() => server.close());

const opened = 'the embedding server failed: knowledge searches go by keywords alone until it answers again';
const closed = 'the embedding server answers again: knowledge searches use vectors again';
const cooldownMs = 60_000;

/** A knowledge base on the real openai client, with the chat model's long timeout and retries for documents, and a clock the test moves. */
function world(model = 'fake-embed-1') {
  const clock = { now: 1_000_000 };
  const { logger, lines } = recordingLogger();
  const embeddings = createEmbeddingsClient(
    { model, baseURL: server.baseURL, apiKey: 'sk-embed-secret-123456', timeoutSeconds: 120, maxRetries: 2 },
    { queryTimeoutSeconds: 0.2 },
  );
  const { knowledge } = knowledgeWorld({ embeddings, logger, now: () => clock.now, embeddingsCooldownMs: cooldownMs });
  const search = (query: string) => knowledge.search({ guildId: 'g1', channelIds: [], query, limit: 2 });
  const said = (msg: string) => lines.filter((line) => line.msg === msg).length;
  return { clock, knowledge, search, said, lines };
}

const manual = documentOf(
  'Manual',
  ['Kettle', 'The kettle boils water. Descale the kettle monthly.'],
  ['Toaster', 'The toaster browns bread; crumbs collect in its tray.'],
);
const headings = (passages: { heading: string | null }[]) => passages.map((passage) => passage.heading);

describe('the embedding breaker (the fake server, the real openai client)', () => {
  it.each(['error', 'rate-limited', 'cut', 'hang'] as const)(
    'after a failed question (%s), searches skip vectors for the cooldown, then one trial; a success closes it',
    async (downAs) => {
      const { clock, knowledge, search, said } = world();
      expect(await knowledge.add(fileAdd('g1', 'manual.md', manual))).toMatchObject({ embedded: true });
      expect(headings(await search('Toaster tray crumbs?'))).toEqual(['Toaster', 'Kettle']);
      const before = server.requests.length;
      server.downAs = downAs;
      server.down = true;

      // One request (no retries, a short timeout), then the passages by keywords alone.
      expect(headings(await search('Toaster tray crumbs?'))).toEqual(['Toaster']);
      expect(server.requests.length).toBe(before + 1);
      // Within the cooldown: no request at all.
      expect(headings(await search('Toaster tray crumbs?'))).toEqual(['Toaster']);
      expect(server.requests.length).toBe(before + 1);
      expect(said(opened)).toBe(1);

      // After it, one trial; it fails, so the breaker opens again (not logged again).
      clock.now += cooldownMs;
      await search('Toaster tray crumbs?');
      await search('Toaster tray crumbs?');
      expect(server.requests.length).toBe(before + 2);
      expect(said(opened)).toBe(1);

      clock.now += cooldownMs;
      server.down = false;
      expect(headings(await search('Toaster tray crumbs?'))).toEqual(['Toaster', 'Kettle']);
      expect(headings(await search('Toaster tray crumbs?'))).toEqual(['Toaster', 'Kettle']);
      expect(server.requests.length).toBe(before + 4);
      expect(said(closed)).toBe(1);
    },
  );

  it('keeps documents added while it is down unembedded, asks nothing for them, and embeds them once it answers again', async () => {
    const { clock, knowledge, search } = world();
    server.down = true;
    expect(await knowledge.add(fileAdd('g1', 'manual.md', manual))).toMatchObject({ ok: true, embedded: false });
    const asked = server.requests.length;
    const other = documentOf('Other', ['Blender', 'The blender purees soup.']);
    expect(await knowledge.add(fileAdd('g1', 'other.md', other))).toMatchObject({ ok: true, embedded: false });
    expect(server.requests.length).toBe(asked);
    expect(knowledge.list('g1').map((document) => document.embeddingStale)).toEqual([true, true]);

    clock.now += cooldownMs;
    server.down = false;
    expect(headings(await search('blender soup'))).toEqual(['Blender']);
    await vi.waitFor(() =>
      expect(knowledge.list('g1').map((document) => document.embeddingModel)).toEqual(['fake-embed-1', 'fake-embed-1']),
    );
    expect(headings(await search('Toaster tray crumbs?'))).toEqual(['Toaster', 'Kettle']);
  });

  it('stays closed for a failure that is no outage (a model the server does not know): each search asks', async () => {
    const { knowledge, search, said, lines } = world('no-such-model');
    await knowledge.add(fileAdd('g1', 'manual.md', manual));
    const before = server.requests.length;
    expect(headings(await search('kettle'))).toEqual(['Kettle']);
    expect(headings(await search('kettle'))).toEqual(['Kettle']);
    expect(server.requests.length).toBe(before + 2);
    expect(said(opened)).toBe(0);
    expect(said('the knowledge search went on by keywords alone')).toBe(2);
    expect(JSON.stringify(lines.map((line) => String(line.fields.err)))).not.toContain('sk-embed-secret-123456');
  });
});
