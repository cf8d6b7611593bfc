/**
 * What must hold in the database whatever the model sent: as lists of problems (empty when all is
 * well), so that a fuzz case can report every one of them with its seed.
 */
import type { Database } from 'better-sqlite3';
import type { MessageRow } from '../../db/messages.ts';
import type { StepRow } from '../../db/steps.ts';
import type { AssistantMessage, ToolCall } from '../../src/agent/messages.ts';
import type { TokenCounter } from '../../src/memory/token-counter.ts';
import { toChatMessages } from '../../src/memory/window.ts';
import { chatRequestProblems } from '../support/openai-conformance.ts';

/** Across the whole database: every run ended, every step belongs to a run and finished. */
export function databaseProblems(db: Database): string[] {
  const problems: string[] = [];
  const running = db.prepare(`SELECT id FROM runs WHERE status = 'running'`).pluck().all() as string[];
  if (running.length > 0) problems.push(`runs still 'running': ${running.join(', ')}`);
  const orphans = db
    .prepare('SELECT count(*) FROM steps WHERE run_id NOT IN (SELECT id FROM runs)')
    .pluck()
    .get() as number;
  if (orphans > 0) problems.push(`${orphans} steps belong to no run`);
  const started = db.prepare(`SELECT run_id, tool_call_id FROM steps WHERE status = 'started'`).all() as {
    run_id: string;
    tool_call_id: string;
  }[];
  for (const step of started)
    problems.push(`run ${step.run_id}: step of ${JSON.stringify(step.tool_call_id)} never finished`);
  return problems;
}

/** One run's step log: each tool call of a model turn is answered by exactly one step of that turn. */
function stepLogProblems(runId: string, steps: readonly StepRow[]): string[] {
  const problems: string[] = [];
  for (const step of steps.filter((row) => row.kind === 'model-call')) {
    const message = JSON.parse(step.message!) as AssistantMessage;
    const ids = (message.tool_calls ?? []).map((call) => call.id);
    if (new Set(ids).size !== ids.length)
      problems.push(`run ${runId}, turn ${step.model_step}: tool_call ids repeat: ${JSON.stringify(ids)}`);
    for (const id of new Set(ids)) {
      const answers = steps.filter(
        (row) => row.kind !== 'model-call' && row.model_step === step.model_step && row.tool_call_id === id,
      ).length;
      if (answers !== 1)
        problems.push(
          `run ${runId}, turn ${step.model_step}: tool_call_id ${JSON.stringify(id)} answered ${answers} times in the step log`,
        );
    }
  }
  return problems;
}

/**
 * A conversation's memory (its rows, oldest first): every assistant message with tool calls has
 * exactly one stored result per call, and the memory sent as a request is valid.
 */
function memoryProblems(rows: readonly MessageRow[], counter: TokenCounter): string[] {
  const problems: string[] = [];
  for (const head of rows.filter((row) => row.role === 'assistant' && row.tool_calls !== null)) {
    const calls = (JSON.parse(head.tool_calls!) as ToolCall[]).map((call) => call.id).sort();
    const results = rows
      .filter((row) => row.role === 'tool' && row.group_id === head.id)
      .map((row) => row.tool_call_id ?? '')
      .sort();
    if (JSON.stringify(calls) !== JSON.stringify(results))
      problems.push(
        `memory: assistant message ${head.id} has calls ${JSON.stringify(calls)} but results ${JSON.stringify(results)}`,
      );
  }
  const messages = toChatMessages(rows, counter, 1500);
  for (const problem of chatRequestProblems({ model: 'm', messages: [{ role: 'system', content: 's' }, ...messages] }))
    problems.push(`memory as a request: ${problem}`);
  return problems;
}

/**
 * One conversation: its runs ended, and each run's steps finished and answered every call; its
 * memory. (Cheaper than `databaseProblems` on a large database, for a check after each case.)
 */
export function conversationProblems(db: Database, conversationId: number, counter: TokenCounter): string[] {
  const runs = db.prepare('SELECT id, status FROM runs WHERE conversation_id = ?').all(conversationId) as {
    id: string;
    status: string;
  }[];
  const steps = db.prepare('SELECT * FROM steps WHERE run_id = ? ORDER BY sequence');
  const rows = db
    .prepare('SELECT * FROM messages WHERE conversation_id = ? ORDER BY id')
    .all(conversationId) as MessageRow[];
  return [
    ...runs.filter((run) => run.status === 'running').map((run) => `run ${run.id} still 'running'`),
    ...runs.flatMap((run) => {
      const ofRun = steps.all(run.id) as StepRow[];
      const started = ofRun
        .filter((step) => step.status === 'started')
        .map((step) => `run ${run.id}: step of ${JSON.stringify(step.tool_call_id)} never finished`);
      return [...started, ...stepLogProblems(run.id, ofRun)];
    }),
    ...memoryProblems(rows, counter),
  ];
}
