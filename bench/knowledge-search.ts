/**
 * `npm run bench:knowledge-search`: the latency of a knowledge search over 50,000 chunks of one
 * server (500 documents of 100 chunks of about 800 characters, in a database file), by BM25 alone
 * and by BM25 + vectors (384 dimensions, as small embedding models make: all-MiniLM-L6-v2,
 * bge-small), fused by reciprocal rank. The text is drawn from the words of the labeled set's pages
 * (bench/knowledge-data) with Zipf's law, so that common words match many chunks as in real text;
 * each query is five words. The query's vector is made in the process (hashed words, as the fake
 * server does), so what is timed is the database's part, not an embedding server's.
 *
 *   npm run bench:knowledge-search      CHUNKS=100000 QUERIES=500 to change the sizes
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../db/open-database.ts';
import { KnowledgeBase } from '../src/knowledge/knowledge-base.ts';
import { inProcessEmbeddings } from '../test/support/fake-embeddings-server.ts';
import { sized } from './smoke.ts';
import { quantile } from './statistics.ts';

const chunkCount = Number(process.env.CHUNKS ?? sized(50_000, 2_000));
const queryCount = Number(process.env.QUERIES ?? sized(300, 10));
const chunksPerDocument = 100;

const pages = new URL('./knowledge-data/pino-docs/', import.meta.url);
const vocabulary = [
  ...new Set(
    readdirSync(pages)
      .filter((name) => name.endsWith('.md'))
      .flatMap(
        (name) =>
          readFileSync(new URL(name, pages), 'utf8')
            .toLowerCase()
            .match(/[a-z]{3,}/g) ?? [],
      ),
  ),
];
/** Zipf's law over the vocabulary: the word of rank r drawn in proportion to 1 / r. */
const cumulative = vocabulary.map((_, rank) => 1 / (rank + 1));
for (let index = 1; index < cumulative.length; index++) cumulative[index]! += cumulative[index - 1]!;
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
function word(): string {
  const target = random() * cumulative.at(-1)!;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return vocabulary[low]!;
}
const words = (count: number) => Array.from({ length: count }, word).join(' ');

/** The fake server's vectors, made in the process: 50,000 of them over HTTP would time the fake. */
const inProcess = inProcessEmbeddings('hashed-384', 384);

const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'knowledge-bench-')), 'bot.sqlite'));
const options = { maxDocumentCharacters: 100_000_000, maxServerCharacters: 1_000_000_000 };
const withVectors = new KnowledgeBase(db, { ...options, embeddings: inProcess });
const keywordsOnly = new KnowledgeBase(db, { ...options, embeddings: null });

const filling = performance.now();
for (let document = 0; document < chunkCount / chunksPerDocument; document++) {
  const sections = Array.from({ length: chunksPerDocument }, (_, index) => ({
    heading: `Section ${index}`,
    text: words(120),
  }));
  await withVectors.add({
    guildId: 'bench',
    channelId: null,
    source: { kind: 'file', key: `file:${document}`, title: `Document ${document}`, link: null },
    addedBy: 'bench',
    authorId: null,
    document: { title: `Document ${document}`, sections },
  });
}
const filled = (performance.now() - filling) / 1000;

async function latencies(knowledge: KnowledgeBase, queries: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await knowledge.search({ guildId: 'bench', channelIds: ['a-channel'], query, limit: 5 });
    times.push(performance.now() - started);
  }
  return times;
}

const queries = Array.from({ length: queryCount }, () => words(5));
// Warm up: the first searches pay for the page cache and the JIT.
await latencies(withVectors, queries.slice(0, 10));
const keyword = await latencies(keywordsOnly, queries);
const fused = await latencies(withVectors, queries);
const chunks = db.prepare('SELECT count(*) FROM knowledge_chunks').pluck().get() as number;

const row = (label: string, times: number[]) =>
  `| ${label} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.99).toFixed(1)} | ${Math.max(...times).toFixed(1)} |`;
console.log(
  `${chunks.toLocaleString('en-US')} chunks in one server (filled in ${filled.toFixed(0)} s), ${queries.length} queries of five words, the first five passages each.`,
);
console.log();
console.log('| search | p50 (ms) | p99 (ms) | max (ms) |');
console.log('|---|--:|--:|--:|');
console.log(row('BM25 alone (FTS5)', keyword));
console.log(row('BM25 + vectors (sqlite-vec, 384 dimensions), fused', fused));
db.close();
