/**
 * A form's submission read back (input-form.ts): choices typed by value or title, lists separated by
 * commas and bounded, numbers in range; each wrong field named. (The modal itself: mcp-elicitation.bot.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { InputField } from '../../../src/agent/tool.ts';
import { inputModal, readInputForm } from '../../../src/discord/runs/input-form.ts';

const fields: InputField[] = [
  {
    name: 'hero',
    label: 'Hero',
    type: 'enum',
    options: ['hero-1', 'hero-2'],
    optionTitles: ['Superman', 'Wonder Woman'],
    required: true,
  },
  {
    name: 'fish',
    label: 'Fish',
    type: 'list',
    options: ['tuna', 'trout', 'salmon'],
    minItems: 1,
    maxItems: 2,
    required: false,
  },
  { name: 'score', label: 'Score', type: 'number', minimum: 0, required: false },
];

describe('a form for a tool’s request for input', () => {
  it('takes an option by its title, a list by commas, and a number', () => {
    expect(readInputForm(fields, ['wonder woman', 'Tuna, trout', '2.5'])).toEqual({
      content: { hero: 'hero-2', fish: ['tuna', 'trout'], score: 2.5 },
    });
    expect(readInputForm(fields, ['hero-1', '', ''])).toEqual({ content: { hero: 'hero-1' } });
  });

  it('names each wrong field', () => {
    expect(readInputForm(fields, ['Batman', 'tuna, trout, salmon', 'many'])).toEqual({
      problems: [
        'Hero: one of: Superman, Wonder Woman',
        'Fish: choose 1 to 2',
        'Score: a number of at least 0, not "many"',
      ],
    });
  });

  it('says in each placeholder what is taken, and fills in the defaults as they would be typed', () => {
    const modal = inputModal('id', 'test__tool', [
      { ...fields[0]!, default: 'hero-1' },
      { ...fields[1]!, default: ['tuna'] },
    ]) as { components: { components: { placeholder: string; value?: string }[] }[] };
    expect(modal.components.map((row) => row.components[0])).toMatchObject([
      { placeholder: 'one of: Superman, Wonder Woman', value: 'Superman' },
      { placeholder: '1 to 2, separated by commas, of: tuna, trout, salmon', value: 'tuna' },
    ]);
  });
});
