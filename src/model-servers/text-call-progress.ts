/**
 * Calls written as `<tool_call>` blocks in streamed text (the text protocol, or a model that writes
 * its calls in the content), followed as the text grows, so that a `final_answer` written this way
 * is shown as it is written too. Only the form the text protocol asks for is followed: the call's
 * `name` before its `arguments` (text-protocol.ts). The whole reply is still read as before
 * (`findTextToolCalls`): this only tells the arguments so far.
 */
import { parseJsonOr } from '../text/parse-json.ts';

/** A call's arguments grew: which call (its place in the reply), its name, and all its arguments so far. */
export interface CallProgress {
  index: number;
  name: string;
  arguments: string;
}

const open = '<tool_call>';
const close = '</tool_call>';
const header = /^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*/;

export class TextCallProgress {
  /** Where each block's text starts (after its `<tool_call>`). */
  private readonly starts: number[] = [];
  /** Text searched for a block's start so far. */
  private searched = 0;
  /** How much of the last block's arguments were told. */
  private told = 0;

  /** Takes all the text so far; returns the call whose arguments it added to (the last block's), if any. */
  update(text: string): CallProgress[] {
    const before = this.starts.length;
    for (
      let at = text.indexOf(open, Math.max(0, this.searched - open.length + 1));
      at !== -1;
      at = text.indexOf(open, at + open.length)
    )
      this.starts.push(at + open.length);
    this.searched = text.length;
    if (this.starts.length !== before) this.told = 0;
    const index = this.starts.length - 1;
    if (index < 0) return [];
    // A block ends at its closing tag, or it is still being written.
    const block = text.slice(this.starts[index]);
    const closed = block.indexOf(close);
    const written = closed === -1 ? heldBack(block) : block.slice(0, closed);
    const head = header.exec(written);
    if (!head) return [];
    const args = written.slice(head[0].length);
    if (args.length <= this.told) return [];
    this.told = args.length;
    const name = parseJsonOr(`"${head[1]!}"`, head[1]!);
    return [{ index, name: typeof name === 'string' ? name : head[1]!, arguments: args }];
  }
}

/** Text still being written, less a tag it may be ending with, half-written (`</tool_c`): not arguments. */
function heldBack(text: string): string {
  const lt = text.lastIndexOf('<');
  if (lt === -1 || text.length - lt > close.length) return text;
  const tail = text.slice(lt);
  return close.startsWith(tail) || open.startsWith(tail) ? text.slice(0, lt) : text;
}
