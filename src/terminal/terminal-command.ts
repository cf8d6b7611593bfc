/**
 * What the operator's small commands (`npm run backup`, `restore`, …) share: their options read
 * with node's parseArgs, `--help` prints the usage, and a refusal (a UserFacingError) is one line on
 * stderr and exit code 1; what they did is printed on stdout, exit code 0.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UserFacingError } from '../agent/errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

export interface TerminalCommand<O extends Options> {
  /** The npm script's name: `backup` for `npm run backup`. */
  name: string;
  usage: string;
  options: O;
  /** Does the work; returns the lines to print. Throws a UserFacingError to refuse. */
  run(values: Values<O>): Promise<string[]> | string[];
}

export async function runTerminalCommand<O extends Options>(
  command: TerminalCommand<O>,
  args: string[],
): Promise<number> {
  try {
    let values: Record<string, unknown>;
    try {
      ({ values } = parseArgs({ args, options: { ...command.options, help: { type: 'boolean', short: 'h' } } }));
    } catch (error) {
      throw new UserFacingError(
        'terminal-usage',
        `${(error as Error).message.split('\n')[0]!.replace(/\.?$/, '.')} npm run ${command.name} -- --help says how to use it.`,
      );
    }
    if (values.help === true) {
      console.log(command.usage);
      return 0;
    }
    console.log((await command.run(values as Values<O>)).join('\n'));
    return 0;
  } catch (error) {
    if (!(error instanceof UserFacingError)) throw error;
    console.error(error.userMessage);
    return 1;
  }
}
