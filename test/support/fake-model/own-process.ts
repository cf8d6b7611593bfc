/**
 * Runs the fake model in a process of its own, so that a bench does not count its work as the
 * bot's: `fork('own-process.ts', ['bench'])` for the agent-loop benches' three turns,
 * `fork('own-process.ts', ['echo'])` for the load benches' echo (LATENCY_MS, STREAM_PIECES in the
 * environment; it sends its counts over IPC when sent any message). Prints its port, then serves
 * until its parent goes.
 */
import { startBenchModel } from './bench-mode.ts';
import { startEchoModel } from './echo-mode.ts';

const mode = process.argv[2];
if (mode === 'echo') {
  const model = await startEchoModel({
    latencyMs: Number(process.env.LATENCY_MS ?? 200),
    streamPieces: Number(process.env.STREAM_PIECES ?? 3),
  });
  process.on('message', () => process.send!(model.counts()));
  process.stdout.write(`${model.port}\n`);
} else if (mode === 'bench') {
  process.stdout.write(`${(await startBenchModel()).port}\n`);
} else {
  throw new Error(`own-process.ts: no mode "${mode}" (bench or echo)`);
}
process.on('disconnect', () => process.exit(0));
