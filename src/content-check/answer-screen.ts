/**
 * An answer checked before people see it, piece by piece: each text to show is checked for what it
 * adds to the text passed before (a live answer's new piece, batched by its pace of edits: at most
 * one check a second), and the whole answer at the end for what no piece covered. Once a piece is
 * held back, nothing more of the answer is shown. One check at a time: its callers are serial (the
 * live answer's chain of Discord calls, then the delivery).
 */
import type { CheckedPlace, ContentChecks, ScreenResult } from './content-checks.ts';

/** What people are told in place of an answer held back, or of its rest when some was shown already. */
export function answerHeldNotice(because: 'flagged' | 'unavailable', someShown: boolean): string {
  const what = someShown ? 'The rest of this answer was held back' : 'I wrote an answer, but it was held back';
  return `${what}: ${because === 'flagged' ? 'a content check flagged it' : 'the content check is not available right now'}.`;
}

export class AnswerScreen {
  private passed = '';
  private heldBecause: 'flagged' | 'unavailable' | null = null;

  /** `question`: what the answer answers (a guard model judges the answer in its conversation). */
  constructor(
    private readonly checks: ContentChecks,
    private readonly place: CheckedPlace,
    private readonly question: string,
  ) {}

  /** Why the answer was held back, or null while nothing was. */
  get held(): 'flagged' | 'unavailable' | null {
    return this.heldBecause;
  }

  /** Whether `text` (the answer so far, all of it) may be shown: what it adds is checked first. */
  async allows(text: string): Promise<boolean> {
    if (this.heldBecause) return false;
    const fresh = text.startsWith(this.passed) ? text.slice(this.passed.length) : text;
    if (fresh.trim() === '') return true;
    const result: ScreenResult = await this.checks.screen(
      { target: 'answer', text: fresh, question: this.question },
      this.place,
    );
    if (result.show) {
      this.passed = text;
      return true;
    }
    this.heldBecause = result.because;
    return false;
  }
}
