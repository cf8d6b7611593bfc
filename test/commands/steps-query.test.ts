/**
 * The /steps list's filters kept in its buttons' custom ids (commands/steps-query.ts): read back
 * as written, within Discord's 100 characters, a long tool name kept as its start.
 */
import { describe, expect, it } from 'vitest';
import { pageCustomId, queryOfPageId, type StepsQuery } from '../../commands/steps-query.ts';

const full: StepsQuery = {
  userId: '200000000000000002',
  channelId: '1575675625572663296',
  tool: 'calculator',
  toolPrefix: false,
  status: 'refused',
  since: 1_764_000_000_000,
  page: 3,
};

describe('/steps custom ids', () => {
  it('read back the list they were written for, on the page asked', () => {
    expect(queryOfPageId(pageCustomId(full, 4))).toEqual({ ...full, page: 4 });
    const none: StepsQuery = { ...full, userId: null, channelId: null, tool: null, status: null, since: null };
    expect(queryOfPageId(pageCustomId(none, 0))).toEqual({ ...none, page: 0 });
  });

  it('fit in 100 characters: a tool name too long for the rest is kept as its start', () => {
    const long = { ...full, tool: `mcp_${'x'.repeat(60)}` };
    const id = pageCustomId(long, 12);
    expect(id.length).toBeLessThanOrEqual(100);
    const read = queryOfPageId(id)!;
    expect(read.toolPrefix).toBe(true);
    expect(long.tool.startsWith(read.tool!)).toBe(true);
    expect(read.tool!.length).toBeGreaterThan(30);
  });

  it('refuse ids they did not write', () => {
    for (const id of ['steps:open', 'steps:page:', 'steps:page:x::::', 'steps:page:-1::::', 'settings:server'])
      expect(queryOfPageId(id)).toBeNull();
  });
});
