/**
 * Preloaded into a bot child started with `--expose-gc --import <this file>` and an IPC channel
 * (bot-process.ts `{ ipc: true }`): on the message "heap" it collects garbage fully and answers
 * `{ heapUsed }`, so that a test measures the bot's heap alone, apart from the fakes. Plain
 * JavaScript: it loads before tsx's loader.
 */
process.on('message', (message) => {
  if (message !== 'heap') return;
  // Node does not await a listener: a failure is written to stderr, where the test shows it.
  answerHeap().catch((error) => console.error('heap probe failed:', error));
});

async function answerHeap() {
  for (let round = 0; round < 4; round++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.send({ heapUsed: process.memoryUsage().heapUsed });
}
