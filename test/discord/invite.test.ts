import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { botPermissions, inviteUrl, userInstallUrl } from '../../src/discord/invite.ts';
import { projectRoot } from '../support/run-process.ts';

describe('invite link', () => {
  it('asks for exactly the permissions the README lists, and the README shows the same integer', () => {
    expect(botPermissions.toArray().sort()).toEqual(
      [
        'AttachFiles',
        'CreatePublicThreads',
        'EmbedLinks',
        'ReadMessageHistory',
        'SendMessages',
        'SendMessagesInThreads',
        'ViewChannel',
      ].sort(),
    );
    const url = new URL(inviteUrl('123456789012345678'));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: '123456789012345678',
      scope: 'bot',
      permissions: botPermissions.bitfield.toString(),
    });
    const readme = readFileSync(`${projectRoot}README.md`, 'utf8');
    expect(readme).toContain(`permissions=${botPermissions.bitfield}`);
  });

  it("installs the app to a person's account with the commands' scope alone (USER_INSTALL)", () => {
    const url = new URL(userInstallUrl('123456789012345678'));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: '123456789012345678',
      integration_type: '1',
      scope: 'applications.commands',
    });
  });
});
