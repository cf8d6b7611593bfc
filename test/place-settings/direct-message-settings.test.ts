/**
 * A DM conversation's settings (ALLOW_DMS): no server or channel to inherit from; only what its
 * person chose there with /model (recorded under the server id "@me"), over the operator's defaults.
 */
import { afterEach, expect, it } from 'vitest';
import { directMessagesServerId } from '../../db/conversations.ts';
import type { Store } from '../../db/store.ts';
import type { ModelCatalog } from '../../src/model-catalog/model-catalog.ts';
import { settingsOfConversation } from '../../src/place-settings/place-choice.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
afterEach(() => store?.close());

const models = { defaultName: 'fast', entries: [{ name: 'fast' }, { name: 'strong' }] } as unknown as ModelCatalog;
const dm = { key: 'discord:555', guild_id: null, channel_id: '555', thread_id: '555' };
const choose = (scope: 'server' | 'thread', scopeId: string, guildId: string, value: string) =>
  store.placeSettings.change([
    { guildId, scope, scopeId, key: 'model', value, changedById: 'u', changedByName: 'Bob' },
  ]);

it("a DM takes the operator's defaults, then its own /model choice; a terminal conversation has no settings", () => {
  ({ store } = tempStore());
  expect(settingsOfConversation(store, models, dm)).toMatchObject({ model: { value: 'fast', change: null } });

  // Another place's choices do not reach it: a server's, and another DM's.
  choose('server', 'g', 'g', 'strong');
  choose('thread', '556', directMessagesServerId, 'strong');
  expect(settingsOfConversation(store, models, dm)?.model.value).toBe('fast');

  choose('thread', '555', directMessagesServerId, 'strong');
  expect(settingsOfConversation(store, models, dm)).toMatchObject({
    model: { value: 'strong', change: { changed_by_name: 'Bob' } },
    persona: null,
  });
  expect(
    settingsOfConversation(store, models, { key: 'terminal:notes', guild_id: null, channel_id: null, thread_id: null }),
  ).toBeNull();
});
