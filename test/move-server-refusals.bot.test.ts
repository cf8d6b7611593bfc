/**
 * `npm run move-server` refusing, as an operator meets it: every refusal exits 1 with one line on
 * stderr, no stack trace, and both databases as they were; and what a move holding a database
 * does to a bot starting on it.
 */
import { existsSync, symlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../db/store.ts';
import { DatabaseInUseError, startInstance } from '../src/run-log/instance.ts';
import { holdAlone, MoveRefusedError } from '../db/move-server-databases.ts';
import { startHeldInstance } from './support/instance-process.ts';
import {
  database,
  everything,
  expectRefusal,
  moveServer,
  moveServerFixtures,
  other,
  reading,
  server,
} from './support/move-server-fixtures.ts';

const fx = moveServerFixtures();

describe('npm run move-server refuses', () => {
  it('a target with other data of the server, changing nothing', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = await database('bot.shard-1.sqlite', [server]);
    const before = [everything(from), everything(to)];

    expectRefusal(
      await moveServer('--server', server, '--from', from, '--to', to),
      new RegExp(
        `^${to} already holds other data of server ${server} \\(2 conversations, .*\\) than ${from} \\(.*\\): nothing was changed\\.$`,
      ),
    );
    expect([everything(from), everything(to)]).toEqual(before);
  });

  it('a database a bot is running on, source or target (a real process holding its instance)', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = await database('bot.shard-1.sqlite', [other]);
    for (const path of [from, to]) {
      // (The held process adds a conversation of its own, with a run, before it says it is ready.)
      const bot = await startHeldInstance(path, 'bot');
      fx.held.push(bot);
      const before = [everything(from), everything(to)];
      expectRefusal(
        await moveServer('--server', server, '--from', from, '--to', to),
        new RegExp(
          `^a bot \\(process ${bot.pid} on .+\\) is using ${path}: stop it before moving a server's data\\. Nothing was changed\\.$`,
        ),
      );
      expect([everything(from), everything(to)]).toEqual(before);
      fx.held = fx.held.filter((instance) => instance !== bot);
      await bot.close();
    }
  });

  it('a server that neither database holds, and removes the target it had to create', async () => {
    const from = await database('bot.sqlite', [other]);
    const to = join(fx.folder, 'bot.shard-1.sqlite');
    expectRefusal(
      await moveServer('--server', server, '--from', from, '--to', to),
      new RegExp(`^Neither ${from} nor ${to} holds any data of server ${server}: nothing to move\\.$`),
    );
    expect(existsSync(to)).toBe(false);
  });

  it('a database from a newer version', async () => {
    const from = await database('bot.sqlite', [server]);
    const to = join(fx.folder, 'future.sqlite');
    reading(to, (store) => store.db.pragma('user_version = 99'));
    expectRefusal(
      await moveServer('--server', server, '--from', from, '--to', to),
      /^The database .*future\.sqlite has schema version 99, but this version of the bot knows only up to \d+\./,
    );
  });

  it('bad arguments, each in one line', async () => {
    const from = await database('bot.sqlite', [server]);
    symlinkSync(from, join(fx.folder, 'link.sqlite'));
    const cases: [string[], RegExp][] = [
      [[], /^Missing --server, --from, --to\. npm run move-server -- --help says how to use it\.$/],
      [
        ['--server', '12345', '--from', from, '--to', 'x.sqlite'],
        /^--server must be a Discord server id, 17 to 20 digits \(it is "12345"\)\.$/,
      ],
      [
        ['--server', server, '--from', 'nowhere.sqlite', '--to', 'x.sqlite'],
        /^There is no database at nowhere\.sqlite \(--from\): nothing to move\.$/,
      ],
      [
        ['--server', server, '--from', from, '--to', 'link.sqlite'],
        /^--from and --to are the same database \(.*bot\.sqlite\)\.$/,
      ],
      [
        ['--server', server, '--from', from, '--to', 'x.sqlite', '--force'],
        /^Unknown option '--force'.* npm run move-server -- --help says how to use it\.$/,
      ],
    ];
    for (const [args, line] of cases) expectRefusal(await moveServer(...args), line);
    const help = await moveServer('--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(
      /^usage: npm run move-server -- --server ID --from DATABASE --to DATABASE \[--dry-run\]\n/,
    );
  });
});

describe('while a move holds a database', () => {
  it('no bot, chat or other move starts on it, with a message that says to wait', async () => {
    const path = await database('bot.sqlite', []);
    const move = await startHeldInstance(path, 'move-server');
    fx.held.push(move);
    expectRefusal(
      await moveServer('--server', server, '--from', path, '--to', join(fx.folder, 'other.sqlite')),
      new RegExp(
        `^a move-server \\(process ${move.pid} on .+\\) is working on ${path}: wait for it to end\\. Nothing was changed\\.$`,
      ),
    );
    reading(path, (store) => {
      for (const [kind, exclusive] of [
        ['bot', true],
        ['chat', false],
      ] as const) {
        const start = () => startInstance(store, kind, { exclusive });
        expect(start).toThrow(DatabaseInUseError);
        expect(start).toThrow(
          `A move-server (process ${move.pid} on ${hostname()}) needs this database to itself for now: start again once it has ended.`,
        );
      }
    });
  });

  it('nor does a move start on a database in use; holding two is all or none', async () => {
    const a = openStore(await database('a.sqlite', []));
    const b = openStore(await database('b.sqlite', []));
    const chat = startInstance(b, 'chat');
    try {
      expect(() =>
        holdAlone([
          { path: 'a.sqlite', store: a },
          { path: 'b.sqlite', store: b },
        ]),
      ).toThrow(
        new MoveRefusedError(
          `b.sqlite: A chat (process ${process.pid} on ${hostname()}) is using this database: stop it first. Nothing was moved.`,
        ),
      );
      // The hold taken on a.sqlite was let go: a bot starts there.
      startInstance(a, 'bot', { exclusive: true }).stop();
    } finally {
      chat.stop();
      a.close();
      b.close();
    }
  });
});
