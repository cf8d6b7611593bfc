import type { ExtractRefusal, KnowledgeSection } from './knowledge-document.ts';

/**
 * JSON as text a search can match: each value on a line of its own after its path
 * ("faq[2].answer: …"); a top-level object gives a section per key, an array a paragraph per item.
 */
export function jsonSections(
  text: string,
  name: string,
): { title: string | null; sections: KnowledgeSection[] } | ExtractRefusal {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refused: 'unreadable', message: `${name} is not valid JSON.` };
  }
  if (Array.isArray(value))
    return {
      title: null,
      sections: [
        { heading: null, text: value.map((item, index) => lines(item, `[${index}]`).join('\n')).join('\n\n') },
      ],
    };
  if (value !== null && typeof value === 'object') {
    const sections = Object.entries(value).map(([key, inner]) => ({
      heading: key,
      text: lines(inner, key).join('\n'),
    }));
    return { title: null, sections };
  }
  return { title: null, sections: [{ heading: null, text: String(value) }] };
}

function lines(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => lines(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, inner]) => lines(inner, path === '' ? key : `${path}.${key}`));
  return [`${path}: ${String(value)}`];
}

/**
 * CSV (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes) with a header row: each
 * row a paragraph of "column: value" pairs, so that a chunk of rows still says what each value is.
 */
export function csvSections(text: string): KnowledgeSection[] {
  const [header, ...rows] = csvRows(text).filter((row) => row.some((field) => field.trim() !== ''));
  if (header === undefined) return [];
  if (rows.length === 0) return [{ heading: null, text: header.join(', ') }];
  const paragraphs = rows.map((row) =>
    row.map((field, index) => `${header[index]?.trim() || `column ${index + 1}`}: ${field.trim()}`).join('; '),
  );
  return [{ heading: null, text: paragraphs.join('\n\n') }];
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quoted && character === '"' && text[index + 1] === '"') {
      field += '"';
      index++;
    } else if (character === '"' && (quoted || field === '')) quoted = !quoted;
    else if (quoted) field += character;
    else if (character === ',') endField();
    else if (character === '\n') endRow();
    else if (character !== '\r') field += character;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}
