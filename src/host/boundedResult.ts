/**
 * What a bounded read of a workspace file gives (`boundedRead.ts` on the desktop, its browser
 * variant through `vscode.workspace.fs`), and the words of its refusals. Pure: no `vscode`, no Node.
 */
export type BoundedRead =
  | { ok: true; bytes: Uint8Array; realPath: string }
  /** `missing`: there is no such file (nothing to tell the user). */
  | { ok: false; missing: boolean; reason: string };

/** "1.5 MB", "256 KB", "12 bytes". */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${+(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** The refusal of a file over the cap; `size` as the user reads it ("1 GB"). */
export function overCap(size: string, maxBytes: number): BoundedRead {
  return { ok: false, missing: false, reason: `it is ${size}, over the ${sizeText(maxBytes)} limit` };
}

/** The bytes as text (UTF-8; a byte-order mark dropped, bad bytes replaced). */
export function textOf(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
