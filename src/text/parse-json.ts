/** `text` parsed as JSON, or `fallback` when it is not JSON (model output and server bodies often are not). */
export function parseJsonOr<T>(text: string, fallback: T): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}
