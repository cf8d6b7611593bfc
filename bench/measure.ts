/**
 * Timing and reporting shared by the agent-loop benches: one timed, checked run of a contender,
 * and the table of medians, p90s and ratios to the floor (the first contender).
 */
import { quantile } from './statistics.ts';

export interface Contender {
  name: string;
  times: number[];
  cpu: number[];
}

/** Times one run (wall and this process's CPU), checks it answered 25 in 3 requests, keeps it after warm-up. */
export async function measureRun(
  contender: Contender,
  run: () => Promise<{ answer: string; requests: number }>,
  keep: boolean,
): Promise<void> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const { answer, requests } = await run();
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (answer !== '25' || requests !== 3)
    throw new Error(`${contender.name}: answered ${answer} in ${requests} requests`);
  if (!keep) return;
  contender.times.push(elapsed);
  contender.cpu.push((cpu.user + cpu.system) / 1000);
}

const median = (values: number[]) => quantile(values, 0.5);

/** Prints the Markdown table; ratios are to the first contender, the floor. */
export function printTable(contenders: readonly Contender[], turnsPerRun: number): void {
  const floor = median(contenders[0]!.times);
  const floorCpu = median(contenders[0]!.cpu);
  console.log(
    '| contender | median ms/run | p90 ms/run | median ms/turn | × floor | client CPU ms/run (median) | CPU × floor |',
  );
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  for (const contender of contenders) {
    const wall = quantile(contender.times, 0.5);
    const cpu = median(contender.cpu);
    console.log(
      `| ${contender.name} | ${wall.toFixed(2)} | ${quantile(contender.times, 0.9).toFixed(2)} | ${(wall / turnsPerRun).toFixed(2)} | ${(wall / floor).toFixed(2)} | ${cpu.toFixed(2)} | ${(cpu / floorCpu).toFixed(2)} |`,
    );
  }
}
