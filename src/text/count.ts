/**
 * A count as people read it, its thousands grouped: "12,345", as `toLocaleString('en-US')` writes
 * it, without Intl: the first use of Intl's number formatting in a process loads ICU's data (7–30
 * ms), and a tool's description wrote one at start.
 */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // Three decimals at most, as en-US writes them (a count is an integer: written as it is).
  const magnitude = Math.abs(value);
  const rounded = Number.isInteger(magnitude) ? magnitude : Math.round(magnitude * 1000) / 1000;
  const [whole = '', fraction] = String(rounded).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 || Object.is(value, -0) ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** A count and its noun, singular for one: "1 run", "2 runs", "12,345 tokens". */
export function countOf(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/**
 * Counts by kind, as the operator's and the moderators' records of a forget say them: "1 message,
 * 0 images, 2 tool calls" (a kind named in camelCase is spelled out in words, in the plural its
 * name has, singular for one).
 */
export function countsInWords<Counts extends Record<keyof Counts, number>>(counts: Counts): string {
  return Object.entries(counts as Record<string, number>)
    .map(([kind, count]) => {
      const words = kind.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
      return countOf(count, words.replace(/(\w+?)s\b/, '$1'), words); // "1 tool call", "1 run stopped"
    })
    .join(', ');
}
