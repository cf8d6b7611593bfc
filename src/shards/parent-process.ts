/**
 * Stopping with the process that started this one. A process manager (systemd, pm2, a container
 * without an init, `kill <pid>`) that runs `npm start` signals npm alone. npm 11 passes SIGTERM to
 * the shell it runs the script in (@npmcli/run-script's signal-manager.js), not to node; that shell
 * (dash) dies of it, npm exits, and node would run on under PID 1, connected and holding its
 * database. A shard process is in the same place when its manager is killed outright.
 */

/** How often the parent is looked for under npm: a stop takes at most this long to be noticed. */
const parentCheckMs = 1_000;

/**
 * Calls `onGone` once when the process that started this one is gone:
 * - started with an IPC channel (a shard under its manager): when the channel closes, which the
 *   kernel does the moment the parent dies, however it dies;
 * - started by npm (`npm_lifecycle_event` set, https://docs.npmjs.com/cli/v11/using-npm/scripts#current-lifecycle-event):
 *   when `process.ppid` changes, checked every second. An orphan is given a new parent (PID 1 or a
 *   subreaper) as its parent exits, so the change is exact: no pid that could be reused meanwhile
 *   is asked after (as `process.kill(pid, 0)` would), and a parent dead but not reaped counts as gone;
 * - otherwise never: a process manager running `node dist/main.js` signals node itself, and
 *   `nohup node dist/main.js &` must outlive the shell that started it.
 */
export function whenParentGone(onGone: () => void, environment: NodeJS.ProcessEnv = process.env): void {
  if (process.channel) {
    process.once('disconnect', onGone);
    return;
  }
  if (environment.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, parentCheckMs);
  // Never the reason the process stays up.
  timer.unref();
}
