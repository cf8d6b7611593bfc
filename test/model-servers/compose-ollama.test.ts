/**
 * compose.yaml's Ollama service gives the bot's prompt room: Ollama's default context (4096 tokens
 * under 24 GiB of VRAM) cuts it from the front without an error.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { settingsSchema } from '../../src/settings/settings-schema.ts';
import { ollama } from '../../src/model-servers/profiles/ollama.ts';
import { projectRoot } from '../support/run-process.ts';

it("compose's Ollama serves twice the bot's default memory window, the context the bot advises", () => {
  const compose = parse(readFileSync(`${projectRoot}compose.yaml`, 'utf8')) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  const setting = compose.services.ollama?.environment?.OLLAMA_CONTEXT_LENGTH ?? '';
  // Changed in .env; this default otherwise (compose's ${VAR:-default}).
  const contextLength = Number(/^\$\{OLLAMA_CONTEXT_LENGTH:-(\d+)\}$/.exec(setting)?.[1]);
  const { MEMORY_TOKEN_BUDGET } = settingsSchema.parse({});

  // The conversation takes at most half the context (windowOptions); the rest is for the system
  // prompt, the tools and the answer.
  expect(contextLength).toBeGreaterThanOrEqual(2 * MEMORY_TOKEN_BUDGET);
  expect(ollama.advice.join(' ')).toContain(`OLLAMA_CONTEXT_LENGTH=${contextLength} `);
});
