import { z } from 'zod';
import { evaluate, formatNumber, maxExpressionLength, supportedNames } from './arithmetic.ts';
import { defineTool } from './define-tool.ts';

export const calculator = defineTool({
  name: 'calculator',
  description:
    'Evaluate an arithmetic expression exactly, instead of computing in your head. Supports + - * / % ^, ' +
    `parentheses, and: ${supportedNames.join(', ')}. Angles are in radians.`,
  parameters: z.object({
    expression: z
      .string()
      .min(1)
      .max(maxExpressionLength)
      .describe('The expression, for example "2 + 3 * 4" or "sqrt(2) * round(pi, 3)".'),
  }),
  execute({ expression }) {
    return formatNumber(evaluate(expression));
  },
});
