/**
 * `npm run check:benches` (part of `npm test`): every `bench*` script of package.json, in smoke mode
 * (BENCH_SMOKE=1: a handful of rounds, bench/smoke.ts), one after another; fails if one exits
 * non-zero or outlives its time. Timing is not judged: a bench that still runs is what is checked,
 * so that the figures in BENCHMARKS.md can always be made again with the commands it names. A new
 * bench script is checked by being there.
 *
 *   npm run check:benches [-- NAME…]   (only those scripts)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const scripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts);
const wanted = process.argv.slice(2);
const benches = scripts.filter((name) => /^bench(:|$)/.test(name) && (wanted.length === 0 || wanted.includes(name)));
/** Longer than any bench takes in smoke mode on two busy cores; a bench that hangs fails here. */
const limitMs = 240_000;

/** What a bench needs to be handed: bench:profile reads a CPU profile, made here of a small loop. */
function argumentsOf(name) {
  if (name !== 'bench:profile') return [];
  const folder = mkdtempSync(join(tmpdir(), 'check-benches-'));
  spawnSync(process.execPath, [
    '--cpu-prof',
    `--cpu-prof-dir=${folder}`,
    '-e',
    'let s = 0; for (let i = 0; i < 3e6; i++) s += i;',
  ]);
  return ['--', join(folder, readdirSync(folder)[0])];
}

function run(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('npm', ['run', '--silent', name, ...argumentsOf(name)], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n(still running after ${limitMs / 1000} s: stopped)`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ name, ok: code === 0, code: code ?? signal, seconds: (performance.now() - started) / 1000, output });
    });
  });
}

const failed = [];
for (const name of benches) {
  const result = await run(name);
  console.log(`${result.ok ? 'ok  ' : 'FAIL'} npm run ${name} (${result.seconds.toFixed(1)} s)`);
  if (!result.ok) {
    failed.push(name);
    console.log(
      `     exit ${result.code}; its last output:\n${result.output.trimEnd().split('\n').slice(-25).join('\n')}`,
    );
  }
}
console.log(`benches in smoke mode: ${benches.length - failed.length} of ${benches.length} ran to the end`);
process.exitCode = failed.length === 0 ? 0 : 1;
