/** How the bot calls a tool of an MCP server: bounded by the call's own signal, its progress heard. */
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ToolContext } from '../agent/tool.ts';

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
