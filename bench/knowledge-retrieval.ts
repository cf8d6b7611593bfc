/**
 * `npm run bench:knowledge-retrieval`: how well the server's knowledge finds the passage that
 * answers a question, on the labeled set of bench/knowledge-data (pino's documentation, MIT, and
 * 48 questions written for it). Measured: recall@5 (the share of questions with an answering
 * passage among the first five) and MRR (the mean of 1 / the rank of the first answering passage,
 * 0 when none is in the first ten), for BM25 alone and for BM25 + vectors fused by reciprocal rank.
 *
 * The vectors come from the fake embeddings server (test/support/fake-embeddings-server.ts:
 * hashed bags of words) unless EMBEDDING_MODEL names a real model: the fake measures the plumbing,
 * not a model's understanding. With a real one:
 *
 *   EMBEDDING_MODEL=nomic-embed-text EMBEDDING_BASE_URL=http://127.0.0.1:11434/v1 npm run bench:knowledge-retrieval
 *   EMBEDDING_MODEL=text-embedding-3-small EMBEDDING_BASE_URL=https://api.openai.com/v1 EMBEDDING_API_KEY=sk-… npm run bench:knowledge-retrieval
 */
import { readdirSync, readFileSync } from 'node:fs';
import { openDatabase } from '../db/open-database.ts';
import { createEmbeddingsClient, type EmbeddingsClient } from '../src/knowledge/embeddings-client.ts';
import { extractText, isRefusal } from '../src/knowledge/extract-text.ts';
import { KnowledgeBase, type Passage } from '../src/knowledge/knowledge-base.ts';
import { startFakeEmbeddingsServer } from '../test/support/fake-embeddings-server.ts';
import { sized } from './smoke.ts';

interface Question {
  question: string;
  relevant: { document: string; heading: string }[];
}

const data = new URL('./knowledge-data/', import.meta.url);
const pages = new URL('pino-docs/', data);
const allQuestions = JSON.parse(readFileSync(new URL('questions.json', data), 'utf8')) as Question[];
const questions = sized(allQuestions, allQuestions.slice(0, 6));

/** A knowledge base of the set's pages, in one server. */
async function knowledgeOf(embeddings: EmbeddingsClient | null): Promise<KnowledgeBase> {
  const knowledge = new KnowledgeBase(openDatabase(':memory:'), {
    embeddings,
    maxDocumentCharacters: 10_000_000,
    maxServerCharacters: 100_000_000,
  });
  for (const name of readdirSync(pages).filter((file) => file.endsWith('.md'))) {
    const bytes = readFileSync(new URL(name, pages));
    const document = await extractText({ bytes, name, contentType: null, maxBytes: 10_000_000 });
    if (isRefusal(document)) throw new Error(`${name}: ${document.message}`);
    const added = await knowledge.add({
      guildId: 'bench',
      channelId: null,
      source: { kind: 'file', key: `file:${name}`, title: name, link: null },
      addedBy: 'bench',
      authorId: null,
      document,
    });
    if (!added.ok || (embeddings !== null && !added.embedded)) throw new Error(`${name} was not added whole`);
  }
  return knowledge;
}

const answers = (passage: Passage, question: Question) =>
  question.relevant.some(
    (place) =>
      passage.title === place.document && (passage.heading ?? '').toLowerCase().includes(place.heading.toLowerCase()),
  );

/** recall@5 and MRR (over the first ten) of the questions. */
async function measure(knowledge: KnowledgeBase): Promise<{ recall: number; mrr: number; misses: string[] }> {
  let found = 0;
  let reciprocal = 0;
  const misses: string[] = [];
  for (const question of questions) {
    const passages = await knowledge.search({ guildId: 'bench', channelIds: [], query: question.question, limit: 10 });
    const rank = passages.findIndex((passage) => answers(passage, question)) + 1;
    if (rank >= 1 && rank <= 5) found += 1;
    else misses.push(question.question);
    reciprocal += rank === 0 ? 0 : 1 / rank;
  }
  return { recall: found / questions.length, mrr: reciprocal / questions.length, misses };
}

const real = process.env.EMBEDDING_MODEL;
const fake = real === undefined ? await startFakeEmbeddingsServer({ models: ['fake-hashed-words'] }) : null;
const client = createEmbeddingsClient({
  model: real ?? 'fake-hashed-words',
  baseURL: fake?.baseURL ?? process.env.EMBEDDING_BASE_URL ?? 'https://api.openai.com/v1',
  apiKey: fake === null ? (process.env.EMBEDDING_API_KEY ?? null) : null,
  timeoutSeconds: 120,
  maxRetries: 2,
});

const keywords = await measure(await knowledgeOf(null));
const fused = await measure(await knowledgeOf(client));
await fake?.close();

const vectors = real === undefined ? 'the fake server (hashed bags of words: plumbing, not a model)' : `\`${real}\``;
console.log(
  `${questions.length} questions over ${readdirSync(pages).filter((file) => file.endsWith('.md')).length} pages.`,
);
console.log();
console.log('| search | recall@5 | MRR |');
console.log('|---|--:|--:|');
console.log(`| BM25 alone | ${keywords.recall.toFixed(2)} | ${keywords.mrr.toFixed(2)} |`);
console.log(`| BM25 + vectors of ${vectors} | ${fused.recall.toFixed(2)} | ${fused.mrr.toFixed(2)} |`);
console.log();
console.log(
  `BM25 alone missed (not in the first five): ${keywords.misses.map((miss) => `"${miss}"`).join('; ') || 'none'}`,
);
console.log(`BM25 + vectors missed: ${fused.misses.map((miss) => `"${miss}"`).join('; ') || 'none'}`);
