/**
 * `npm run bench:profile -- <file.cpuprofile> [filter] [--against <floor.cpuprofile>]`: where a CPU
 * profile's time went, as tables of self time by function and by file, so that a drift in
 * `npm run bench` is found in minutes. The profile is the one node writes with --cpu-prof
 * (https://nodejs.org/api/cli.html#--cpu-prof). With `--against`, the tables are the difference:
 * what the first profile spent more than the second, function by function (profile the floor and
 * ours alone, with the same --runs, and the rows on top are what our loop adds):
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/ours --import tsx bench/agent-loop.ts --runs 3000 --only ours
 *   node --cpu-prof --cpu-prof-dir=/tmp/floor --import tsx bench/agent-loop.ts --runs 3000 --only floor
 *   npm run bench:profile -- /tmp/ours/CPU.*.001.cpuprofile src/                 # the project's code only
 *   npm run bench:profile -- /tmp/ours/CPU.*.001.cpuprofile --against /tmp/floor/CPU.*.001.cpuprofile
 *
 * Self time is the time a function was on top of the stack; (idle) and (garbage collector) are V8's.
 * A native call (JSON.parse, a SQLite statement) counts as its JavaScript caller's self time.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

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

interface SelfTimes {
  total: number;
  byFunction: Map<string, number>;
  byFile: Map<string, number>;
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { against: { type: 'string' } } });
const [path, filter = ''] = positionals;
if (!path) {
  console.error('usage: npm run bench:profile -- <file.cpuprofile> [filter] [--against <other.cpuprofile>]');
  process.exit(2);
}

/** Self time (µs) by function and by file. */
function selfTimes(file: string): SelfTimes {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const times: SelfTimes = { total: 0, byFunction: new Map(), byFile: new Map() };
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    times.total += micros;
    const frame = frames.get(id)!;
    // Paths from the project's folders on, so that the tables read the same on any machine.
    const where =
      frame.url.replace(/^.*?\/(src|db|tools|commands|bench|test|node_modules)\//, '$1/') || frame.functionName;
    const name = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    times.byFunction.set(name, (times.byFunction.get(name) ?? 0) + micros);
    times.byFile.set(where, (times.byFile.get(where) ?? 0) + micros);
  });
  return times;
}

/** `times` less `base`, row by row (a row only in `base` comes out negative). */
function less(times: Map<string, number>, base: Map<string, number>): Map<string, number> {
  const difference = new Map(times);
  for (const [name, micros] of base) difference.set(name, (difference.get(name) ?? 0) - micros);
  return difference;
}

function table(title: string, times: Map<string, number>, total: number, rows: number): void {
  console.log(`\n| ${title} | self ms | share |\n|---|--:|--:|`);
  for (const [name, micros] of [...times]
    .filter(([name]) => name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows))
    console.log(`| ${name} | ${(micros / 1000).toFixed(0)} | ${((100 * micros) / total).toFixed(1)} % |`);
}

const profile = selfTimes(path);
const base = values.against ? selfTimes(values.against) : null;
const heading = base
  ? `${path} against ${values.against}: ${(profile.total / 1000).toFixed(0)} ms against ${(base.total / 1000).toFixed(0)} ms sampled; rows: what the first spent more`
  : `${path}: ${(profile.total / 1000).toFixed(0)} ms sampled`;
console.log(`${heading}${filter ? `; rows matching "${filter}"` : ''}`);
table('function', base ? less(profile.byFunction, base.byFunction) : profile.byFunction, profile.total, 30);
table('file', base ? less(profile.byFile, base.byFile) : profile.byFile, profile.total, 20);
