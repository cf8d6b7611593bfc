/**
 * A small arithmetic evaluator for the calculator tool: numbers, + - * / % ^, parentheses, a few
 * constants and functions. No eval, no Function, no ranges or matrices: every expression runs in
 * time and memory bounded by its length, which is itself bounded.
 */

export const maxExpressionLength = 500;
const maxDepth = 64;

// Maps, not object literals: a name like "constructor" must not find Object.prototype's members.
const constants = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);

const functions = new Map<string, { arity: [number, number]; apply: (...args: number[]) => number }>(
  Object.entries({
    sqrt: { arity: [1, 1], apply: Math.sqrt },
    cbrt: { arity: [1, 1], apply: Math.cbrt },
    abs: { arity: [1, 1], apply: Math.abs },
    floor: { arity: [1, 1], apply: Math.floor },
    ceil: { arity: [1, 1], apply: Math.ceil },
    trunc: { arity: [1, 1], apply: Math.trunc },
    sign: { arity: [1, 1], apply: Math.sign },
    round: { arity: [1, 2], apply: (x, digits = 0) => roundTo(x, digits) },
    exp: { arity: [1, 1], apply: Math.exp },
    ln: { arity: [1, 1], apply: Math.log },
    log: { arity: [1, 2], apply: (x, base = 10) => Math.log(x) / Math.log(base) },
    log2: { arity: [1, 1], apply: Math.log2 },
    log10: { arity: [1, 1], apply: Math.log10 },
    sin: { arity: [1, 1], apply: Math.sin },
    cos: { arity: [1, 1], apply: Math.cos },
    tan: { arity: [1, 1], apply: Math.tan },
    asin: { arity: [1, 1], apply: Math.asin },
    acos: { arity: [1, 1], apply: Math.acos },
    atan: { arity: [1, 1], apply: Math.atan },
    atan2: { arity: [2, 2], apply: Math.atan2 },
    hypot: { arity: [1, 16], apply: Math.hypot },
    min: { arity: [1, 16], apply: Math.min },
    max: { arity: [1, 16], apply: Math.max },
    pow: { arity: [2, 2], apply: Math.pow },
  } satisfies Record<string, { arity: [number, number]; apply: (...args: number[]) => number }>),
);

export const supportedNames = [...constants.keys(), ...functions.keys()];

/** Thrown for an expression that cannot be evaluated; the message says where and why. */
export class ArithmeticError extends Error {
  override readonly name = 'ArithmeticError';
}

type Token = { kind: 'number'; value: number; at: number } | { kind: 'name' | 'symbol'; text: string; at: number };

/** Evaluates `expression`; the result is a finite number or an `ArithmeticError`. */
export function evaluate(expression: string): number {
  if (expression.length > maxExpressionLength) {
    throw new ArithmeticError(`the expression is longer than ${maxExpressionLength} characters`);
  }
  const parser = new Parser(tokenize(expression));
  const value = parser.expression(0);
  parser.expectEnd();
  if (!Number.isFinite(value)) throw new ArithmeticError('the result is not a finite number (a division by zero?)');
  return value;
}

/** Rounds away binary noise (0.1 + 0.2 gives 0.3) for display; 15 significant digits are exact. */
export function formatNumber(value: number): string {
  return String(Number(value.toPrecision(15)));
}

function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) throw new ArithmeticError('round() takes 0 to 15 digits');
  const factor = 10 ** digits;
  return Math.round(x * factor) / factor;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)|([a-z_][a-z0-9_]*)|(\*\*|[-+*/%^(),×÷]))/giy;
  let at = 0;
  while (at < text.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) {
      if (text.slice(at).trim() === '') break;
      const position = at + (text.slice(at).length - text.slice(at).trimStart().length);
      throw new ArithmeticError(`unexpected "${text[position]}" at position ${position + 1}`);
    }
    const start = match.index + match[0].length - (match[1] ?? match[2] ?? match[3] ?? '').length;
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]), at: start });
    else if (match[2] !== undefined) tokens.push({ kind: 'name', text: match[2].toLowerCase(), at: start });
    else if (match[3] !== undefined) tokens.push({ kind: 'symbol', text: normalizeSymbol(match[3]), at: start });
    at = pattern.lastIndex;
  }
  return tokens;
}

function normalizeSymbol(symbol: string): string {
  return symbol === '**' ? '^' : symbol === '×' ? '*' : symbol === '÷' ? '/' : symbol;
}

const binary = new Map<string, { precedence: number; right: boolean; apply: (a: number, b: number) => number }>(
  Object.entries({
    '+': { precedence: 1, right: false, apply: (a: number, b: number) => a + b },
    '-': { precedence: 1, right: false, apply: (a: number, b: number) => a - b },
    '*': { precedence: 2, right: false, apply: (a: number, b: number) => a * b },
    '/': { precedence: 2, right: false, apply: (a: number, b: number) => a / b },
    '%': { precedence: 2, right: false, apply: (a: number, b: number) => a % b },
    '^': { precedence: 4, right: true, apply: (a: number, b: number) => a ** b },
  }),
);
const unaryPrecedence = 3;

/** Precedence climbing over the tokens; `depth` bounds nesting so the stack cannot overflow. */
class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  expression(minPrecedence: number): number {
    if (++this.depth > maxDepth) throw new ArithmeticError(`the expression nests deeper than ${maxDepth} levels`);
    let left = this.operand();
    for (let token = this.peek(); token?.kind === 'symbol' && binary.has(token.text); token = this.peek()) {
      const operator = binary.get(token.text)!;
      if (operator.precedence < minPrecedence) break;
      this.index += 1;
      const right = this.expression(operator.right ? operator.precedence : operator.precedence + 1);
      left = operator.apply(left, right);
    }
    this.depth -= 1;
    return left;
  }

  expectEnd(): void {
    const token = this.peek();
    if (token) throw new ArithmeticError(`unexpected "${describe(token)}" at position ${token.at + 1}`);
  }

  private operand(): number {
    const token = this.next('a number, a name or "("');
    if (token.kind === 'number') return token.value;
    if (token.kind === 'symbol') {
      if (token.text === '-') return -this.expression(unaryPrecedence);
      if (token.text === '+') return this.expression(unaryPrecedence);
      if (token.text === '(') {
        const value = this.expression(0);
        this.expectSymbol(')');
        return value;
      }
      throw new ArithmeticError(`unexpected "${token.text}" at position ${token.at + 1}`);
    }
    const constant = constants.get(token.text);
    if (constant !== undefined) return constant;
    const fn = functions.get(token.text);
    if (!fn) {
      throw new ArithmeticError(`unknown name "${token.text}"; known: ${supportedNames.join(', ')}`);
    }
    this.expectSymbol('(');
    const args = [this.expression(0)];
    while (this.peek()?.kind === 'symbol' && (this.peek() as { text: string }).text === ',') {
      this.index += 1;
      args.push(this.expression(0));
    }
    this.expectSymbol(')');
    const [least, most] = fn.arity;
    if (args.length < least || args.length > most) {
      throw new ArithmeticError(
        `${token.text}() takes ${least === most ? least : `${least} to ${most}`} argument(s), not ${args.length}`,
      );
    }
    return fn.apply(...args);
  }

  private expectSymbol(symbol: string): void {
    const token = this.next(`"${symbol}"`);
    if (token.kind !== 'symbol' || token.text !== symbol) {
      throw new ArithmeticError(`expected "${symbol}" at position ${token.at + 1}, found "${describe(token)}"`);
    }
  }

  private next(expected: string): Token {
    const token = this.tokens[this.index];
    if (!token) throw new ArithmeticError(`the expression ends early: expected ${expected}`);
    this.index += 1;
    return token;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }
}

function describe(token: Token): string {
  return token.kind === 'number' ? String(token.value) : token.text;
}
