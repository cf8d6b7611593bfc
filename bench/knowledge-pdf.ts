/**
 * `npm run bench:knowledge-pdf`: adding a 300-page PDF to the server's knowledge: the time to
 * read its text (unpdf), then to chunk and store it (FTS5 index included), and to embed it in
 * batches (the fake embeddings server on 127.0.0.1: the requests' plumbing, not a model's speed);
 * and the memory it takes: the process's peak RSS and the heap's growth, sampled as it runs. The
 * PDF is written by test/support/pdf-file.ts: 300 pages of 46 lines (about 3,000 characters a page,
 * a dense book page), Helvetica, uncompressed.
 *
 *   npm run bench:knowledge-pdf       PAGES=1000 to change the size
 */
import { openDatabase } from '../db/open-database.ts';
import { createEmbeddingsClient } from '../src/knowledge/embeddings-client.ts';
import { extractText, isRefusal } from '../src/knowledge/extract-text.ts';
import { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { startFakeEmbeddingsServer } from '../test/support/fake-embeddings-server.ts';
import { pdfFile } from '../test/support/pdf-file.ts';
import { sized } from './smoke.ts';

const pageCount = Number(process.env.PAGES ?? sized(300, 5));
const words =
  'the server keeps its rules pinned in the welcome channel and moderators answer questions about roles events refunds shipping accounts passwords invites bans appeals voice channels bots and schedules every week'.split(
    ' ',
  );
let seed = 7;
const nextWord = () => words[(seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % words.length]!;
const line = () => Array.from({ length: 11 }, nextWord).join(' ');
const pages = Array.from({ length: pageCount }, (_, page) => [
  `Chapter ${page + 1}`,
  ...Array.from({ length: 45 }, line),
]);
const pdf = pdfFile(pages, { title: 'Bench book' });

const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
const heapBefore = process.memoryUsage().heapUsed;

const fake = await startFakeEmbeddingsServer({ models: ['fake-embed-1'], dimensions: 384 });
const knowledge = new KnowledgeBase(openDatabase(':memory:'), {
  embeddings: createEmbeddingsClient({
    model: 'fake-embed-1',
    baseURL: fake.baseURL,
    apiKey: null,
    timeoutSeconds: 60,
    maxRetries: 0,
  }),
  maxDocumentCharacters: 100_000_000,
  maxServerCharacters: 100_000_000,
});

const started = performance.now();
const document = await extractText({
  bytes: pdf,
  name: 'book.pdf',
  contentType: 'application/pdf',
  maxBytes: 100_000_000,
});
const extracted = performance.now();
if (isRefusal(document)) throw new Error(document.message);
let embeddedAt = 0;
const added = await knowledge.add({
  guildId: 'bench',
  channelId: null,
  source: { kind: 'file', key: 'file:book.pdf', title: 'Bench book', link: null },
  addedBy: 'bench',
  authorId: null,
  document,
  onProgress: (embedded, total) => {
    if (embedded === 0) embeddedAt = performance.now();
    if (embedded === total) embeddedAt = performance.now() - embeddedAt;
  },
});
const done = performance.now();
clearInterval(sampler);
const heapAfter = process.memoryUsage().heapUsed;
await fake.close();
if (!added.ok) throw new Error(added.message);

const characters = document.sections.reduce((sum, section) => sum + section.text.length, 0);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
console.log(
  `A ${pageCount}-page PDF (${mib(pdf.byteLength)} MiB, ${characters.toLocaleString('en-US')} characters) → ${added.chunks} chunks, embedded: ${added.embedded}`,
);
console.log();
console.log('| step | time |');
console.log('|---|--:|');
console.log(`| text read (unpdf) | ${((extracted - started) / 1000).toFixed(2)} s |`);
console.log(`| chunked and stored (FTS5 index included) | ${((done - extracted - embeddedAt) / 1000).toFixed(2)} s |`);
console.log(
  `| embedded in ${Math.ceil(added.chunks / 32)} batches of 32 (the fake server) | ${(embeddedAt / 1000).toFixed(2)} s |`,
);
console.log(`| in all | ${((done - started) / 1000).toFixed(2)} s |`);
console.log();
console.log(
  `RSS ${mib(rssBefore)} MiB before (the PDF made, tsx loaded), peak ${mib(peakRss)} MiB while adding; the heap grew ${mib(heapAfter - heapBefore)} MiB (no GC forced).`,
);
