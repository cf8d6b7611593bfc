/**
 * Forgets.forgetting (src/conversation/forgets.ts), over the runs of ActiveRuns: a member's runs in the place are stopped
 * and settled before the forget runs; others' and other places' are left alone; new runs of the
 * place wait until the forget is done. A cut-off run's answer posted at the next start is waited for
 * as a run delivering its answer is.
 */
import { describe, expect, it } from 'vitest';
import { ActiveRuns } from '../../src/conversation/active-runs.ts';
import { Forgets } from '../../src/conversation/forgets.ts';

const ada = 'ada-id';
const bob = 'bob-id';

describe('Forgets.forgetting', () => {
  it("stops the member's runs in the place (a batch with others too), and forgets once they have settled", async () => {
    const runs = new ActiveRuns();
    const hers = runs.begin('discord:1', { guildId: 'g', requesterIds: [ada] });
    const batch = runs.begin('discord:2', { guildId: 'g', requesterIds: [bob, ada] });
    const bobs = runs.begin('discord:3', { guildId: 'g', requesterIds: [bob] });
    const elsewhere = runs.begin('discord:4', { guildId: 'other', requesterIds: [ada] });
    const order: string[] = [];
    const settleWhenStopped = (name: string, run: typeof hers) =>
      run.stopped.addEventListener('abort', () =>
        setImmediate(() => {
          order.push(`${name} settled`);
          run.end();
          run.settled();
        }),
      );
    settleWhenStopped('hers', hers);
    settleWhenStopped('batch', batch);

    const forgot = await new Forgets(runs).forgetting('g', ada, () => order.push('forget') && 'done');

    expect(forgot).toEqual({ stopped: 2, result: 'done' });
    expect(order).toEqual(['hers settled', 'batch settled', 'forget']);
    expect(bobs.stopped.aborted).toBe(false);
    expect(elsewhere.stopped.aborted).toBe(false);
  });

  it('waits for a run delivering its answer without counting it stopped, and for no longer than its bound', async () => {
    const runs = new ActiveRuns();
    const delivering = runs.begin('discord:1', { guildId: null, requesterIds: [ada] });
    delivering.end(); // Its answer is being posted: it still writes, and is not stopped.
    const stuck = runs.begin('discord:2', { guildId: null, requesterIds: [ada] }); // Never settles.
    let forgotten = false;
    setImmediate(() => delivering.settled());

    const forgot = await new Forgets(runs).forgetting(null, ada, () => (forgotten = true), 50);

    expect(forgot.stopped).toBe(1);
    expect(delivering.stopped.aborted).toBe(false);
    expect(stuck.stopped.aborted).toBe(true);
    expect(forgotten).toBe(true);
  });

  it("waits for a lone delivery (a cut-off run's answer, posted at the next start) without counting it stopped", async () => {
    const runs = new ActiveRuns();
    const delivery = runs.beginDelivery({ guildId: 'g', requesterIds: [ada] });
    const order: string[] = [];
    setImmediate(() => {
      order.push('posted');
      delivery.settled();
    });

    const forgot = await new Forgets(runs).forgetting('g', ada, () => order.push('forget'));

    expect(forgot.stopped).toBe(0);
    expect(order).toEqual(['posted', 'forget']);
  });

  it('holds new runs of the place until the forget is done; other places go on', async () => {
    const runs = new ActiveRuns();
    const hers = runs.begin('discord:1', { guildId: 'g', requesterIds: [ada] });
    let finish!: () => void;
    const forgets = new Forgets(runs);
    const forget = forgets.forgetting('g', ada, () => new Promise<void>((resolve) => (finish = resolve)));
    const order: string[] = [];
    const here = forgets.clearOf('g').then(() => order.push('run here'));
    await forgets.clearOf('other');
    order.push('run elsewhere');
    hers.settled();
    await new Promise((resolve) => setImmediate(resolve));
    order.push('forget done');
    finish();
    await Promise.all([forget, here]);

    expect(order).toEqual(['run elsewhere', 'forget done', 'run here']);
  });
});
