/**
 * The bounded read of a file named by URI, through `vscode.workspace.fs` alone: a virtual
 * workspace on the desktop, and every workspace in VS Code for the Web. The file system is asked
 * its type and size first; what it gives is checked against the cap again (a file may grow).
 * There are no links to follow here: the provider serves what the URI names.
 */
import * as vscode from 'vscode';
import { overCap, sizeText } from './boundedResult';
import type { BoundedRead } from './boundedResult';

export async function readUriBounded(uri: vscode.Uri, maxBytes: number): Promise<BoundedRead> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory)
      return { ok: false, missing: false, reason: 'it is a folder, not a regular file' };
    if (!(stat.type & vscode.FileType.File))
      return { ok: false, missing: false, reason: 'it is not a regular file' };
    if (stat.size > maxBytes) return overCap(sizeText(stat.size), maxBytes);
    const bytes = await vscode.workspace.fs.readFile(uri);
    if (bytes.length > maxBytes)
      return overCap(`larger than its size says (more than ${sizeText(maxBytes)})`, maxBytes);
    return { ok: true, bytes, realPath: uri.toString() };
  } catch (error) {
    if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound')
      return { ok: false, missing: true, reason: 'it does not exist' };
    return { ok: false, missing: false, reason: `it could not be read (${String(error)})` };
  }
}
