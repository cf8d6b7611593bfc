import type { Database } from 'better-sqlite3';
import { createAnswerReportQueries } from './answer-reports.ts';
import { createChannelCursorQueries } from './channel-cursors.ts';
import { createContentFlagQueries } from './content-flags.ts';
import { createCatchUpRunQueries } from './catch-up-runs.ts';
import { createConversationQueries } from './conversations.ts';
import { createImageQueries } from './images.ts';
import { createInstanceQueries } from './instances.ts';
import { createLogOutboxQueries } from './log-outbox.ts';
import { createMemberFactQueries } from './member-facts.ts';
import { createMessageQueries } from './messages.ts';
import { createModelServerQueries } from './model-servers.ts';
import { openDatabase, openDatabaseReadOnly } from './open-database.ts';
import { createPlaceSettingQueries } from './place-settings.ts';
import { createRunQueries } from './runs.ts';
import { createStepQueries } from './steps.ts';
import { createSummaryQueries } from './memory-summaries.ts';
import { createScheduleQueries } from './schedules.ts';
import { createSearchQueries } from './search.ts';
import { createServerRunQueries } from './server-runs.ts';
import { createUsageQueries } from './usage.ts';

/** The open database with every query module, its statements prepared once. */
export interface Store {
  db: Database;
  conversations: ReturnType<typeof createConversationQueries>;
  channelCursors: ReturnType<typeof createChannelCursorQueries>;
  messages: ReturnType<typeof createMessageQueries>;
  images: ReturnType<typeof createImageQueries>;
  runs: ReturnType<typeof createRunQueries>;
  steps: ReturnType<typeof createStepQueries>;
  instances: ReturnType<typeof createInstanceQueries>;
  usage: ReturnType<typeof createUsageQueries>;
  modelServers: ReturnType<typeof createModelServerQueries>;
  search: ReturnType<typeof createSearchQueries>;
  /** Scheduled runs (`/schedule`) and each due time claimed. */
  schedules: ReturnType<typeof createScheduleQueries>;
  placeSettings: ReturnType<typeof createPlaceSettingQueries>;
  answerReports: ReturnType<typeof createAnswerReportQueries>;
  serverRuns: ReturnType<typeof createServerRunQueries>;
  logOutbox: ReturnType<typeof createLogOutboxQueries>;
  contentFlags: ReturnType<typeof createContentFlagQueries>;
  /** Conversations' running summaries (src/memory/memory-summary.ts). */
  summaries: ReturnType<typeof createSummaryQueries>;
  /** The facts members asked the bot to keep (migration 18). */
  memberFacts: ReturnType<typeof createMemberFactQueries>;
  /** `/summarize`'s runs (db/catch-up-runs.ts). */
  catchUps: ReturnType<typeof createCatchUpRunQueries>;
  close(): void;
}

/** Opens, creating and migrating it as needed; `readOnly` opens an existing, current database to read. */
export function openStore(path: string, options: { readOnly?: boolean } = {}): Store {
  const db = options.readOnly ? openDatabaseReadOnly(path) : openDatabase(path);
  return {
    db,
    conversations: createConversationQueries(db),
    channelCursors: createChannelCursorQueries(db),
    messages: createMessageQueries(db),
    images: createImageQueries(db),
    runs: createRunQueries(db),
    steps: createStepQueries(db),
    instances: createInstanceQueries(db),
    usage: createUsageQueries(db),
    modelServers: createModelServerQueries(db),
    search: createSearchQueries(db),
    schedules: createScheduleQueries(db),
    placeSettings: createPlaceSettingQueries(db),
    answerReports: createAnswerReportQueries(db),
    serverRuns: createServerRunQueries(db),
    logOutbox: createLogOutboxQueries(db),
    contentFlags: createContentFlagQueries(db),
    summaries: createSummaryQueries(db),
    memberFacts: createMemberFactQueries(db),
    catchUps: createCatchUpRunQueries(db),
    close: () => db.close(),
  };
}
