/** The doctor's report as text for a terminal: a table of the checks, then the fixes and the verdict. */
import type { DoctorReport } from './checkup.ts';

const statusMark = { ok: 'ok', gap: 'gap', fatal: 'FAIL', unknown: '?' } as const;

/** The report as printed: the table, the fixes in effect and learned, the profile's advice, the verdict. */
export function formatReport(report: DoctorReport, databasePath: string): string {
  const header = ['check', 'result', 'what the bot does about it'];
  const cells = report.rows.map((row) => [`${statusMark[row.status].padEnd(4)} ${row.label}`, row.result, row.action]);
  const widths = [0, 1].map((column) => Math.max(header[column]!.length, ...cells.map((cell) => cell[column]!.length)));
  const line = (cell: string[]) =>
    `${cell[0]!.padEnd(widths[0]!)}  ${cell[1]!.padEnd(widths[1]!)}  ${cell[2]}`.trimEnd();
  const out = [
    `Model server ${report.server}, model ${report.model}`,
    `Profile: ${report.providerName} (${report.providerChosenBy})`,
    '',
    line([`     ${header[0]}`, header[1]!, header[2]!]),
    ...cells.map(line),
    '',
    `Fixes the bot applies to this server and model: ${report.fixesInEffect.length > 0 ? report.fixesInEffect.join('; ') : 'none'}`,
  ];
  if (report.learnedNow.length > 0)
    out.push(`Learned now, and remembered in ${databasePath}: ${report.learnedNow.join('; ')}`);
  // The doctor changes the bot for good: say so, and how to undo it without an SQLite tool.
  out.push(
    `Saved in ${databasePath}, and used by the bot until forgotten: this report (the bot logs it at start, and MODEL_VISION=auto follows its image check) and the fixes learned for this server and model (applied at each request).`,
    `List what is remembered: npm run doctor -- --learned. Undo it: npm run doctor -- --forget ${report.model}`,
  );
  // The generic profile's advice is to run the doctor: this is it.
  const advice = report.advice.filter((line) => !line.includes('npm run doctor'));
  if (advice.length > 0) out.push(`Advice for ${report.providerName}:`, ...advice.map((line) => `  - ${line}`));
  out.push('');
  const fatal = report.rows.filter((row) => row.status === 'fatal');
  out.push(
    report.works
      ? 'The bot can work with this server and model.'
      : `The bot cannot work with this server and model: ${fatal.map((row) => `${row.label}: ${row.result}`).join('; ')}.`,
  );
  return out.join('\n');
}
