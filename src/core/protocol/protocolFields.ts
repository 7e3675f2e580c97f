/** Checks both chat protocols share (chatProtocol.ts imports agentProtocol.ts, so neither can hold them). */

/** An id the webview or storage may name: a non-empty string of at most 200 characters. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 200;
}

/** A workspace checkpoint's id (`cp-<time>-<random>`): safe as a ref name and in messages. */
export function isCheckpointId(value: unknown): value is string {
  return typeof value === 'string' && /^cp-[a-z0-9]{1,16}-[a-z0-9]{1,16}$/.test(value);
}
