import * as vscode from 'vscode';

/**
 * `readStart.ts` in VS Code for the Web: `vscode.workspace.fs` reads a file whole, so it is read,
 * then cut to its first `maxBytes`.
 */
export async function readStart(
  file: vscode.Uri,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; size: number }> {
  const all = await vscode.workspace.fs.readFile(file);
  return { bytes: all.subarray(0, maxBytes), size: all.byteLength };
}
