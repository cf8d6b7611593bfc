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
          ...(placeholder(field) ? { placeholder: truncate(placeholder(field), maxPlaceholder) } : {}),
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
  if (field.type === 'enum') return `${about}one of: ${choices(field)}`;
  if (field.type === 'list') return `${about}${countOf(field)}, separated by commas, of: ${choices(field)}`;
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

/** The options as people read them (their titles, when they have some). */
function choices(field: InputField): string {
  return (field.optionTitles ?? field.options!).join(', ');
}

/** The option a person typed: its value or its title, in any case. */
function optionOf(field: InputField, typed: string): string | undefined {
  const word = typed.toLowerCase();
  const index = field.options!.findIndex(
    (option, at) => option.toLowerCase() === word || field.optionTitles?.[at]?.toLowerCase() === word,
  );
  return index === -1 ? undefined : field.options![index];
}

/** How many choices a list takes, in words: "one or more", "1 to 3". */
function countOf(field: InputField): string {
  const least = field.minItems ?? 0;
  if (field.maxItems === undefined) return least > 1 ? `${least} or more` : 'one or more';
  return `${least} to ${field.maxItems}`;
}

/** A default as the person would type it (an option by its title). */
function shown(field: InputField, value: string | number | boolean | readonly string[]): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const title = (option: string) => field.optionTitles?.[field.options?.indexOf(option) ?? -1] ?? option;
  return truncate(Array.isArray(value) ? value.map(title).join(', ') : title(String(value)), maxValue);
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
    if (typeof value === 'object' && 'problem' in value) problems.push(`${field.label}: ${value.problem}`);
    else content[field.name] = value;
  });
  return problems.length > 0 ? { problems } : { content };
}

/** A list's choices, typed separated by commas: each one of the options, as many as it takes. */
function listValue(field: InputField, text: string): string[] | { problem: string } {
  const chosen: string[] = [];
  for (const word of text
    .split(',')
    .map((each) => each.trim())
    .filter(Boolean)) {
    const option = optionOf(field, word);
    if (!option) return { problem: `"${truncate(word, 40)}" is not one of: ${choices(field)}` };
    if (!chosen.includes(option)) chosen.push(option);
  }
  const fits = chosen.length >= (field.minItems ?? 1) && chosen.length <= (field.maxItems ?? Infinity);
  return fits ? chosen : { problem: `choose ${countOf(field)}` };
}

function fieldValue(field: InputField, text: string): string | number | boolean | string[] | { problem: string } {
  if (field.type === 'boolean') {
    const word = text.toLowerCase();
    return yes.has(word) ? true : no.has(word) ? false : { problem: 'answer yes or no' };
  }
  if (field.type === 'enum') {
    return optionOf(field, text) ?? { problem: `one of: ${choices(field)}` };
  }
  if (field.type === 'list') return listValue(field, text);
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
