import { afterEach, describe, expect, it } from 'vitest';
import type { NewSettingChange, SettingScope } from '../../db/place-settings.ts';
import type { Store } from '../../db/store.ts';
import {
  effectiveSettings,
  type Place,
  serverOfTool,
  toolEnabled,
  toolKey,
} from '../../src/place-settings/effective-settings.ts';
import { tempStore } from '../support/temp-store.ts';

let store: Store;
afterEach(() => store?.close());

const place: Place = { guildId: 'g', channelId: 'c', threadId: 't' };
const ids: Record<SettingScope, string> = { server: 'g', channel: 'c', thread: 't' };
const set = (scope: SettingScope, key: string, value: string | null): NewSettingChange => ({
  guildId: 'g',
  scope,
  scopeId: ids[scope],
  key,
  value,
  changedById: 'u',
  changedByName: 'Ada',
});
const defaults = { modelName: 'fast', modelNames: ['fast', 'strong'] };
const now = () => effectiveSettings(store.placeSettings, place, defaults);

describe('settings in effect', () => {
  it("the nearest place's value wins; a cleared value inherits again; the operator's default last", () => {
    ({ store } = tempStore());
    expect(now()).toMatchObject({ persona: null, model: { value: 'fast', change: null } });
    store.placeSettings.change([set('server', 'persona', 'server'), set('channel', 'persona', 'channel')]);
    expect(now().persona?.value).toBe('channel');
    store.placeSettings.change([set('channel', 'persona', null)]);
    expect(now().persona).toMatchObject({ value: 'server', change: { scope: 'server', changed_by_name: 'Ada' } });
    // Another channel's settings are not this one's.
    expect(effectiveSettings(store.placeSettings, { ...place, channelId: 'other' }, defaults).persona?.value).toBe(
      'server',
    );
  });

  it('a model the operator no longer offers is passed over; "only" makes a thread\'s own choice not count', () => {
    ({ store } = tempStore());
    store.placeSettings.change([set('server', 'model', 'strong'), set('channel', 'model', 'retired')]);
    expect(now().model.value).toBe('strong');
    store.placeSettings.change([set('thread', 'model', 'fast')]);
    expect(now().model.value).toBe('fast');
    store.placeSettings.change([set('server', 'model_only', 'yes')]);
    expect(now()).toMatchObject({ model: { value: 'strong' }, modelOnly: { value: true } });
  });

  it("a channel undoes its server's \"only\" with its own 'no'", () => {
    ({ store } = tempStore());
    store.placeSettings.change([set('server', 'model', 'strong'), set('server', 'model_only', 'yes')]);
    store.placeSettings.change([set('thread', 'model', 'fast')]);
    expect(now()).toMatchObject({ model: { value: 'strong' }, modelOnly: { value: true } });
    store.placeSettings.change([set('channel', 'model_only', 'no')]);
    expect(now()).toMatchObject({ model: { value: 'fast' }, modelOnly: { value: false } });
  });

  it('a server and its first channel may share an id (servers made before 2017): their settings stay apart', () => {
    ({ store } = tempStore());
    const shared: Place = { guildId: 'g', channelId: 'g', threadId: null };
    const at = (scope: SettingScope, key: string, value: string) => ({ ...set(scope, key, value), scopeId: 'g' });
    store.placeSettings.change([at('server', 'persona', 'for the server'), at('channel', 'persona', 'for #general')]);
    expect(effectiveSettings(store.placeSettings, shared, defaults).persona?.value).toBe('for #general');
    // Every other channel still has the server's.
    expect(effectiveSettings(store.placeSettings, { ...shared, channelId: 'other' }, defaults).persona?.value).toBe(
      'for the server',
    );
  });

  it("the nearest switch of a tool or its MCP server decides; at one place, the tool's own", () => {
    ({ store } = tempStore());
    const enabled = (tool: string) => toolEnabled(now(), tool, serverOfTool(tool, ['github']));
    expect(enabled('github__search')).toBe(true);
    store.placeSettings.change([set('server', toolKey('github'), 'off')]);
    expect(enabled('github__search')).toBe(false);
    expect(enabled('calculator')).toBe(true);
    store.placeSettings.change([set('channel', toolKey('github__search'), 'on')]);
    expect(enabled('github__search')).toBe(true);
    expect(enabled('github__issues')).toBe(false);
    store.placeSettings.change([
      set('channel', toolKey('github'), 'off'),
      set('server', toolKey('github__issues'), 'on'),
    ]);
    expect(enabled('github__search')).toBe(true);
    expect(enabled('github__issues')).toBe(false);
  });
});
