import { describe, expect, it } from 'vitest';
import { ArithmeticError, evaluate, formatNumber, maxExpressionLength } from '../../tools/arithmetic.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { fromZodTool } from '../../src/agent/runtime-tool.ts';
import { calculator } from '../../tools/calculator.ts';

const context = {
  conversationId: 'c',
  guildId: null,
  channelId: null,
  requester: { id: 'u', displayName: 'Ada', isModerator: false },
  logger: silentLogger,
  signal: new AbortController().signal,
};

describe('calculator', () => {
  it.each([
    ['2+3*4', '14'],
    ['(2+3)*4', '20'],
    ['2^3^2', '512'],
    ['2**10', '1024'],
    ['-2^2', '-4'],
    ['2^-1', '0.5'],
    ['10 % 4', '2'],
    ['7 / 2', '3.5'],
    ['0.1 + 0.2', '0.3'],
    ['1.5e3 + .5', '1500.5'],
    ['sqrt(16) + abs(-3)', '7'],
    ['round(pi, 3)', '3.142'],
    ['max(1, 9, 4) - min(3, 2)', '7'],
    ['log(1000)', '3'],
    ['log(8, 2)', '3'],
    ['6 × 7 ÷ 2', '21'],
    ['  3   *   ( 1 + 1 ) ', '6'],
  ])('evaluates %s = %s', (expression, expected) => {
    expect(formatNumber(evaluate(expression))).toBe(expected);
  });

  it.each([
    ['2 +', /ends early/],
    ['2 * (3 + 4', /ends early: expected "\)"/],
    ['1 / 0', /not a finite number/],
    ['foo(2)', /unknown name "foo"/],
    ['constructor', /unknown name "constructor"/],
    ['__proto__', /unknown name "__proto__"/],
    ['sqrt(1, 2)', /takes 1 argument/],
    ['2 $ 3', /unexpected "\$" at position 3/],
    ['2 3', /unexpected "3" at position 3/],
    ['range(1, 1e9)', /unknown name "range"/],
    ['process.exit(1)', /unexpected "\."|unknown name/],
  ])('refuses %s with a clear reason', (expression, reason) => {
    expect(() => evaluate(expression)).toThrow(ArithmeticError);
    expect(() => evaluate(expression)).toThrow(reason);
  });

  it('bounds the length and the nesting of an expression', () => {
    expect(() => evaluate('1+'.repeat(maxExpressionLength))).toThrow(/longer than/);
    expect(() => evaluate(`${'('.repeat(100)}1${')'.repeat(100)}`)).toThrow(/nests deeper than/);
    expect(() => evaluate('-'.repeat(200) + '1')).toThrow(/nests deeper than/);
  });

  it('is offered with a strict schema and returns the result as text', async () => {
    const tool = fromZodTool(calculator);
    expect(tool.spec.function.strict).toBe(true);
    expect(tool.validate({ expression: '' }).ok).toBe(false);
    await expect(tool.execute({ expression: '2+3*4' }, context)).resolves.toBe('14');
  });
});
