/**
 * A tool's request for input (`InputRequest`'s form) as a Discord modal, and the modal's submission
 * read back into typed values. A modal holds text inputs only, five at most, each labelled in 45
 * characters: a boolean, a choice or a number is typed, its placeholder saying what is taken, and
 * checked when the form comes back.
 * https://discord.com/developers/docs/components/reference#text-input
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-modal
 */
import { ComponentType, TextInputStyle } from 'discord.js';
import type { InputField, InputOutcome } from '../../agent/tool.ts';
import { truncate } from '../../text/truncate.ts';

/** Discord's limits of a modal. */
export const maxModalFields = 5;
const maxTitle = 45;
const maxLabel = 45;
const maxPlaceholder = 100;
const maxValue = 4_000;

const yes = new Set(['yes', 'y', 'true', '1', 'on']);
const no = new Set(['no', 'n', 'false', '0', 'off']);

/** The modal of a form; its text inputs' custom ids are the fields' positions (names may be long). */
export function inputModal(customId: string, tool: string, fields: readonly InputField[]): unknown {
  return {
    custom_id: customId,
    title: truncate(`Input for ${tool}`, maxTitle),
    components: fields.map((field, index) => ({
      type: ComponentType.ActionRow,
      components: [
        {
          type: ComponentType.TextInput,
          custom_id: String(index),
          label: truncate(field.label, maxLabel),
          style:
            field.type === 'string' && (field.maxLength ?? maxValue) > 100
              ? TextInputStyle.Paragraph
              : TextInputStyle.Short,
          required: field.required,
          placeholder: truncate(placeholder(field), maxPlaceholder),
          max_length: Math.min(field.maxLength ?? maxValue, maxValue),
          ...(field.minLength ? { min_length: Math.min(field.minLength, maxValue) } : {}),
          ...(field.default !== undefined ? { value: shown(field, field.default) } : {}),
        },
      ],
    })),
  };
}

/** What the person is told to type. */
function placeholder(field: InputField): string {
  const about = field.description ? `${field.description} · ` : '';
  if (field.type === 'boolean') return `${about}yes or no`;
  if (field.type === 'enum') return `${about}one of: ${field.options!.join(', ')}`;
  if (field.type === 'string') return field.description ?? '';
  const kind = field.type === 'integer' ? 'a whole number' : 'a number';
  const range =
    field.minimum !== undefined && field.maximum !== undefined
      ? ` from ${field.minimum} to ${field.maximum}`
      : field.minimum !== undefined
        ? ` of at least ${field.minimum}`
        : field.maximum !== undefined
          ? ` of at most ${field.maximum}`
          : '';
  return `${about}${kind}${range}`;
}

function shown(field: InputField, value: string | number | boolean): string {
  return typeof value === 'boolean' ? (value ? 'yes' : 'no') : truncate(String(value), maxValue);
}

/**
 * The submitted texts (by position) as the form's content, or what is wrong with them. An empty
 * optional field is left out.
 */
export function readInputForm(
  fields: readonly InputField[],
  texts: readonly string[],
): { content: NonNullable<InputOutcome['content']> } | { problems: string[] } {
  const content: NonNullable<InputOutcome['content']> = {};
  const problems: string[] = [];
  fields.forEach((field, index) => {
    const text = (texts[index] ?? '').trim();
    if (text === '') {
      if (field.required) problems.push(`${field.label}: required`);
      return;
    }
    const value = fieldValue(field, text);
    if (typeof value === 'object') problems.push(`${field.label}: ${value.problem}`);
    else content[field.name] = value;
  });
  return problems.length > 0 ? { problems } : { content };
}

function fieldValue(field: InputField, text: string): string | number | boolean | { problem: string } {
  if (field.type === 'boolean') {
    const word = text.toLowerCase();
    return yes.has(word) ? true : no.has(word) ? false : { problem: 'answer yes or no' };
  }
  if (field.type === 'enum') {
    const option = field.options!.find((each) => each.toLowerCase() === text.toLowerCase());
    return option ?? { problem: `one of: ${field.options!.join(', ')}` };
  }
  if (field.type === 'string') {
    if (field.minLength !== undefined && text.length < field.minLength)
      return { problem: `at least ${field.minLength} characters` };
    return text;
  }
  const number = Number(text);
  if (!Number.isFinite(number))
    return { problem: `${placeholder({ ...field, description: undefined })}, not "${truncate(text, 40)}"` };
  if (field.type === 'integer' && !Number.isInteger(number)) return { problem: 'a whole number' };
  if (field.minimum !== undefined && number < field.minimum) return { problem: `at least ${field.minimum}` };
  if (field.maximum !== undefined && number > field.maximum) return { problem: `at most ${field.maximum}` };
  return number;
}
