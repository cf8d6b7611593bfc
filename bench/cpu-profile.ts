/**
 * `npm run bench:profile -- <file.cpuprofile> [filter]`: where a CPU profile's time went, as tables
 * of self time by function and by file, so that a drift in `npm run bench` is found in minutes.
 * The profile is the one node writes with --cpu-prof (https://nodejs.org/api/cli.html#--cpu-prof):
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/agent-loop.ts --runs 300
 *   npm run bench:profile -- /tmp/prof/CPU.*.001.cpuprofile          # the bench's own process
 *   npm run bench:profile -- /tmp/prof/CPU.*.001.cpuprofile src/     # the project's code only
 *
 * Self time is the time a function was on top of the stack; (idle) and (garbage collector) are V8's.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

const [path, filter = ''] = process.argv.slice(2);
if (!path) {
  console.error('usage: npm run bench:profile -- <file.cpuprofile> [filter]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  total += micros;
  const frame = frames.get(id)!;
  // Paths from the project's folders on, so that the tables read the same on any machine.
  const file =
    frame.url.replace(/^.*?\/(src|db|tools|commands|bench|test|node_modules)\//, '$1/') || frame.functionName;
  const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  byFile.set(file, (byFile.get(file) ?? 0) + micros);
});

function table(title: string, times: Map<string, number>, rows: number): void {
  console.log(`\n| ${title} | self ms | share |\n|---|--:|--:|`);
  for (const [name, micros] of [...times]
    .filter(([name]) => name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows))
    console.log(`| ${name} | ${(micros / 1000).toFixed(0)} | ${((100 * micros) / total).toFixed(1)} % |`);
}

console.log(`${path}: ${(total / 1000).toFixed(0)} ms sampled${filter ? `; rows matching "${filter}"` : ''}`);
table('function', byFunction, 30);
table('file', byFile, 20);
