/**
 * The script of a scripted mode: the steps tests queue, taken one per request, and the fallback for
 * requests beyond them. A request with no step, a request for another route and steps left over
 * are failures of the test (recorded on the server, thrown at its `close()`).
 */
import type { ServerResponse } from 'node:http';
import { type Exchange, sendJson } from './server.ts';

export class Script<Step> {
  private readonly steps: Step[] = [];
  private fallback: Step | null = null;

  /** `name` says who failed in the messages: "scripted model", "fake model server". */
  constructor(
    private readonly failures: string[],
    private readonly name: string,
  ) {}

  enqueue(...steps: Step[]): void {
    this.steps.push(...steps);
  }

  /** The step for requests the script has no step for; null makes such a request a failure again. */
  otherwise(step: Step | null): void {
    this.fallback = step;
  }

  /** Removes the steps not yet requested; returns how many there were. */
  drain(): number {
    return this.steps.splice(0).length;
  }

  /**
   * The step for request number `requestNumber`; with none, records the failure, answers a 500 the
   * client must not retry, and returns undefined.
   */
  next(requestNumber: number, response: ServerResponse): Step | undefined {
    const step = this.steps.shift() ?? this.fallback ?? undefined;
    if (step === undefined) {
      this.failures.push(`unexpected request ${requestNumber}: the script is empty`);
      sendJson(response, 500, { error: { message: `${this.name}: no reply scripted` } }, { 'x-should-retry': 'false' });
    }
    return step;
  }

  /** Records the steps never requested as a failure (at close); `what` names them: "replies", "steps". */
  checkLeftOver(what: string): void {
    if (this.steps.length > 0) this.failures.push(`${this.steps.length} scripted ${what} were never requested`);
  }
}

/** True for a chat-completions request; anything else is recorded as unexpected and answered 404. */
export function isChatRequest({ request, response }: Exchange, failures: string[]): boolean {
  if (request.method === 'POST' && request.url === '/v1/chat/completions') return true;
  failures.push(`unexpected ${request.method} ${request.url}`);
  sendJson(response, 404, { error: { message: 'not found' } });
  return false;
}
