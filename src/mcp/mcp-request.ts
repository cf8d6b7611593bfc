/**
 * How the bot sends a request to an MCP server (a tool call, a resource read): bounded by the call's
 * own signal, its progress heard, and its failures told as people should hear them.
 */
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { errorMessage, UserFacingError } from '../agent/errors.ts';
import type { ToolContext, ToolServerStatus } from '../agent/tool.ts';
import { truncateLine } from '../text/truncate.ts';

/**
 * Why a server is down, as people see it, is cut to this length (an HTTP error can carry a whole
 * page); room for the end of its stderr (200 characters at most) and a short error.
 */
export const maxReasonLength = 320;

/** setTimeout's ceiling: calls are bounded by the tool's own signal, not the SDK's 60 s default. */
const noSdkTimeout = 2_147_483_647;

/**
 * The SDK's options for one `tools/call`. Given `onprogress`, the SDK sends the request's id as
 * `_meta.progressToken` and hands the server's `notifications/progress` for it to that callback
 * (`Protocol.request` and `_onprogress` in @modelcontextprotocol/sdk/dist/esm/shared/protocol.js,
 * 1.32). Its `resetTimeoutOnProgress` would reset only the SDK's own timeout, which is off here:
 * TOOL_TIMEOUT_SECONDS bounds the call whatever it reports. The SDK hands notifications on a
 * microtask but responses at once (`_onnotification`), so a last progress read in the same chunk as
 * the result comes after its handler is gone and is dropped: the result shows the end anyway.
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/progress
 * `masked`: takes the server's secrets out of its progress messages, as out of its other words.
 */
export function callOptions(context: ToolContext, masked: (text: string) => string): RequestOptions {
  return {
    signal: context.signal,
    timeout: noSdkTimeout,
    onprogress: ({ progress, total, message }) =>
      context.reportProgress?.({
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message: masked(message) }),
      }),
  };
}

/** A request while the server is not up: what the model and `/tool` are told. */
export function unavailable(server: string, status: ToolServerStatus): UserFacingError {
  const why = status.state === 'down' ? status.reason : 'it is still starting';
  return new UserFacingError(
    'mcp_unavailable',
    `the ${server} MCP server is unavailable right now (${why}); try again in a little while`,
  );
}

/**
 * A request that failed: the bot was shutting down (`closed`), the server went away during it
 * (`lost`), or it answered with an error or could not be reached (`failed`, its words masked and cut).
 */
export function requestFailed(
  server: string,
  what: string,
  error: unknown,
  how: 'closed' | 'lost' | 'failed',
  masked: (text: string) => string,
): UserFacingError {
  if (how === 'closed')
    return new UserFacingError(
      'mcp_closed',
      `the ${server} MCP server was stopped during the call: the bot is shutting down`,
      { cause: error },
    );
  if (how === 'lost')
    return new UserFacingError(
      'mcp_crashed',
      `the ${server} MCP server stopped during the call; it is being restarted`,
      { cause: error },
    );
  return new UserFacingError(
    'mcp_call_failed',
    `the ${server} MCP server could not ${what}: ${truncateLine(masked(errorMessage(error)), maxReasonLength)}`,
    { cause: error },
  );
}
