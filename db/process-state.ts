/** What Linux says of a process, read from /proc. */
import { readFileSync } from 'node:fs';

/**
 * The state letter of process `pid` (R running, S sleeping, Z zombie: it has exited but its parent
 * has not reaped it yet, ...), or null if there is no such process, or no /proc to ask (not Linux).
 * See proc_pid_stat(5): https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html
 */
export function processState(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) S ...": the name may hold spaces and parentheses, so the state follows the last ')'.
  const end = stat.lastIndexOf(')');
  return stat.slice(end + 2, end + 3);
}
