/** The jump links of a catch-up summary: a `since:` message link parsed, invented links removed. */
import { describe, expect, it } from 'vitest';
import { keepReadLinks, linkCitations, parseMessageLink } from '../../src/catch-up/jump-links.ts';

const link = (message: string) => `https://discord.com/channels/1/2/${message}`;

describe('parseMessageLink', () => {
  it('reads a message link of a server, a DM and the ptb host', () => {
    expect(parseMessageLink(` ${link('3')} `)).toEqual({ guildId: '1', channelId: '2', messageId: '3' });
    expect(parseMessageLink('https://discord.com/channels/@me/5/6')?.guildId).toBe('@me');
    expect(parseMessageLink('https://ptb.discord.com/channels/1/2/3')?.messageId).toBe('3');
  });

  it('refuses a channel link, a duration and a link with more around it', () => {
    expect(parseMessageLink('https://discord.com/channels/1/2')).toBeNull();
    expect(parseMessageLink('2h')).toBeNull();
    expect(parseMessageLink(`see ${link('3')}`)).toBeNull();
  });
});

describe('keepReadLinks', () => {
  it('keeps links to messages read and removes an invented one, bare or in markdown', () => {
    const summary = `Ana asked ([1](${link('10')})). Bo answered ${link('99')} and [here](${link('98')}).`;
    const { text, removed } = keepReadLinks(summary, new Set(['10']));
    expect(text).toBe(`Ana asked ([1](${link('10')})). Bo answered and here.`);
    expect(removed).toBe(2);
  });
});

describe('linkCitations', () => {
  it('makes the numbers cited links to the messages read, and drops a number past them', () => {
    const links = [link('10'), link('11')];
    const { text, removed } = linkCitations('Ana asked (#1, #2). Bo made it up (#7).', links);
    expect(text).toBe(`Ana asked ([#1](${link('10')}), [#2](${link('11')})). Bo made it up.`);
    expect(removed).toBe(1);
  });
});
