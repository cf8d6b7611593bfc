/** The claim of a schedule's due time, on a real database: once, whoever asks; taken over only from a process that is gone. */
import { afterEach, expect, it } from 'vitest';
import type { Store } from '../../db/store.ts';
import { startInstance } from '../../src/run-log/instance.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
afterEach(() => store?.close());

function addSchedule(dueAt: number) {
  return store.schedules.add({
    guild_id: '1',
    channel_id: '2',
    name: 'n',
    prompt: 'p',
    when_text: 'daily 09:00',
    cron: '0 9 * * *',
    time_zone: 'UTC',
    post_as: 'thread',
    model: null,
    persona: null,
    created_by_id: '3',
    created_by_name: 'Ada',
    next_run_at: dueAt,
  });
}

it('a due time is claimed once: a second claim of it, by another process or after a restart, gets nothing', () => {
  ({ store } = tempStore());
  const id = addSchedule(1_000);
  const first = store.schedules.claim(id, 1_000, 86_401_000, 0, 2_000);
  expect(first).toMatchObject({ schedule_id: id, due_at: 1_000, state: 'claimed' });
  expect(store.schedules.claim(id, 1_000, 86_401_000, 0, 2_000)).toBeUndefined();
  // Even were its next time put back (a process that read the row before the first claim).
  store.db.prepare('UPDATE schedules SET next_run_at = 1000 WHERE id = ?').run(id);
  expect(store.schedules.claim(id, 1_000, 86_401_000, 0, 2_000)).toBeUndefined();
  expect(store.schedules.runsOf(id)).toHaveLength(1);
});

it('a claimed run is taken by one live process; from one that is gone, by the next', () => {
  ({ store } = tempStore());
  const live = startInstance(store, 'bot');
  const run = store.schedules.claim(addSchedule(1_000), 1_000, null, 0, Date.now())!;
  expect(store.schedules.take(run.id, live.id)).toMatchObject({ claimed_by: live.id, attempts: 1 });
  expect(store.schedules.take(run.id, 'another')).toBeUndefined();
  live.stop();
  expect(store.schedules.take(run.id, 'another')).toMatchObject({ claimed_by: 'another', attempts: 2 });
});
