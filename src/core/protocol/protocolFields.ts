/** Checks both chat protocols share (chatProtocol.ts imports agentProtocol.ts, so neither can hold them). */

/** An id the webview or storage may name: a non-empty string of at most 200 characters. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 200;
}
