/**
 * docs/operating.md's "What the log lines mean" against the code: every line the bot can log is
 * explained there, nothing explained there is gone from the code, and the `errorCode`s a failed run
 * logs are the ones the code writes. An alert written from the docs must match what the log says.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelErrorCode, modelErrorKinds } from '../../src/agent/model-error.ts';
import { projectRoot } from '../support/run-process.ts';
import { documentedMessages, logCalls, patternOf } from './log-messages.ts';

const operating = readFileSync(join(projectRoot, 'docs/operating.md'), 'utf8');
const documented = documentedMessages(operating).filter((message) => message !== 'msg');
const patterns = documented.map(patternOf);

/**
 * Calls whose message is made away from the call (by the call's argument as written): the messages it
 * can be, each with the file that writes it, where it must be found as listed, so a change shows here.
 */
const madeElsewhere: Record<string, { file: string; message: string }[]> = {
  'summary.message': [{ file: 'src/model-servers/server-summary.ts', message: 'model server: … at …, model …; …' }],
  what: [
    { file: 'src/discord/inbound/recovery.ts', message: 'could not catch up on a thread' },
    { file: 'src/discord/inbound/recovery.ts', message: 'could not catch up on a channel' },
  ],
  droppedMessage: [
    { file: 'src/mcp/server-log.ts', message: 'MCP server log: messages left out of the log' },
    { file: 'src/mcp/stderr-log.ts', message: 'MCP server stderr: lines left out of the log' },
  ],
};

const inCode = logCalls(projectRoot).flatMap((call) => {
  if (call.messages.length > 0) return call.messages;
  return madeElsewhere[call.source]?.map(({ message }) => message) ?? [`(unreadable in ${call.file}: ${call.source})`];
});

describe('What the log lines mean (docs/operating.md)', () => {
  it('reads the messages of every log call in the code', () => {
    expect(inCode.filter((message) => message.startsWith('(unreadable'))).toEqual([]);
    expect(inCode.length).toBeGreaterThan(100);
    for (const { file, message } of Object.values(madeElsewhere).flat())
      expect(readFileSync(join(projectRoot, file), 'utf8')).toContain(message.split('…')[0]);
  });

  it('explains every line the bot can log', () => {
    const unexplained = [...new Set(inCode.filter((message) => !patterns.some((pattern) => pattern.test(message))))];
    expect(unexplained).toEqual([]);
  });

  it('explains no line the bot no longer logs', () => {
    expect(documented.filter((_, index) => !inCode.some((message) => patterns[index]!.test(message)))).toEqual([]);
  });

  it("lists as a failed run's errorCode exactly the codes the code writes", () => {
    const row = operating.split('\n').find((line) => line.startsWith('| `run failed` |'))!;
    const listed = [...row.split(' | ')[2]!.matchAll(/`([a-z-]+)`/g)].map((match) => match[1]);
    const codes = [...modelErrorKinds.map(modelErrorCode), 'internal'];
    expect(new Set(listed)).toEqual(new Set(codes));
    expect(listed).toHaveLength(codes.length);
  });

  it('names no errorCode the code does not write, anywhere in the manual', () => {
    const codes = new Set([...modelErrorKinds.map(modelErrorCode), 'internal', 'tool-error', 'no-summary']);
    const pages = [
      'README.md',
      ...readdirSync(join(projectRoot, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    // `errorCode: "…"`, and the codes in backquotes on a line (or the line after) that says errorCode.
    const named = pages.flatMap((page) => {
      const lines = readFileSync(join(projectRoot, page), 'utf8').split('\n');
      return lines
        .filter((line, index) => /errorCode/.test(line) || /errorCode/.test(lines[index - 1] ?? ''))
        .flatMap((line) => [...line.matchAll(/errorCode: "([a-z-]+)"|`((?:model-)?[a-z]+(?:-[a-z]+)+|internal)`/g)])
        .map((match) => `${page}: ${match[1] ?? match[2]}`);
    });
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((entry) => !codes.has(entry.split(': ')[1]!))).toEqual([]);
  });
});
