import * as vscode from 'vscode';
import type { FileChange } from '../../core/agent/types';
import { ToolInputError } from '../../core/agent/types';
import { notify } from '../notify';
import { WorkspaceAccess } from './workspaceAccess';
import type { Located } from './workspaceAccess';

export type UndoOutcome = { undone: true } | { undone: false; reason: string };

/**
 * Puts back every file a turn changed or created: their text before the turn, or no file for a
 * file it created. Files changed since (by the user or by a later turn) are named and the user
 * is asked first. It goes through a `WorkspaceEdit`, so the editor's undo can take it back too.
 *
 * Each file is judged as the agent's tools judge a path, by its real path: inside a workspace
 * folder the tools use, no secret, nothing in `.git`; and judged again just before the edit, so
 * a folder swapped for a symbolic link meanwhile cannot turn the undo into a write elsewhere.
 */
export async function undoTurnChanges(
  changes: readonly FileChange[],
  /** The secrets list in force (the built-in one and the user's additions): never written. */
  secretPatterns: () => readonly string[],
  /** The workspace folders (`vscode.workspace.workspaceFolders`; tests pass others). */
  workspaceFolders: () => readonly vscode.WorkspaceFolder[] = () => vscode.workspace.workspaceFolders ?? [],
): Promise<UndoOutcome> {
  if (!vscode.workspace.isTrusted)
    return {
      undone: false,
      reason: 'This workspace is in Restricted Mode, where the agent changes no files.',
    };
  const access = new WorkspaceAccess(workspaceFolders, secretPatterns);
  const folders = workspaceFolders();
  const targets: { change: FileChange; folderUri: string; file: Located; now: string | undefined }[] = [];
  for (const change of changes) {
    const folderUri = change.folderUri ?? folders[change.folder]?.uri.toString();
    if (folderUri === undefined)
      return { undone: false, reason: `The workspace folder of ${change.path} is not open in this window.` };
    const file = await locate(access, folderUri, change.path);
    if (typeof file === 'string') return { undone: false, reason: file };
    targets.push({ change, folderUri, file, now: await currentText(file.uri) });
  }
  const changedSince = targets.filter((t) => t.now !== t.change.after).map((t) => t.change.path);
  if (changedSince.length) {
    const answer = await notify.ask(
      `Gateway AI: ${changedSince.length === 1 ? 'this file has' : 'these files have'} changed since the turn: ${changedSince.join(', ')}. Undo the turn anyway? Those later changes to ${changedSince.length === 1 ? 'it' : 'them'} are lost too.`,
      'Undo Anyway',
    );
    if (answer !== 'Undo Anyway') return { undone: false, reason: 'Cancelled.' };
  }
  // Judged again after the question: nothing on a path may have changed where it leads.
  for (const { change, folderUri, file } of targets) {
    const again = await locate(access, folderUri, change.path);
    if (typeof again === 'string') return { undone: false, reason: again };
    if (again.real !== file.real || again.uri.toString() !== file.uri.toString())
      return {
        undone: false,
        reason: `${file.display} now leads somewhere else than when the turn changed it (a folder on its path changed), so nothing was undone.`,
      };
  }
  const edit = new vscode.WorkspaceEdit();
  for (const {
    change,
    file: { uri },
    now,
  } of targets) {
    if (change.before === null) {
      if (now !== undefined) edit.deleteFile(uri, { ignoreIfNotExists: true });
    } else if (now === undefined) {
      edit.createFile(uri, { overwrite: false, ignoreIfExists: true });
      edit.insert(uri, new vscode.Position(0, 0), change.before);
    } else {
      const doc = await vscode.workspace.openTextDocument(uri);
      edit.replace(
        uri,
        new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
        change.before,
      );
    }
  }
  if (!(await vscode.workspace.applyEdit(edit)))
    return { undone: false, reason: 'VS Code did not apply the edit (a file may be read-only).' };
  for (const {
    change,
    file: { uri },
  } of targets) {
    if (change.before === null) continue;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty) await doc.save();
  }
  return { undone: true };
}

/** The recorded file located as the tools would locate it, or why it cannot be. */
async function locate(access: WorkspaceAccess, folderUri: string, path: string): Promise<Located | string> {
  try {
    return await access.locateRecorded(folderUri, path);
  } catch (error) {
    if (error instanceof ToolInputError) return `Nothing was undone: ${error.message}`;
    throw error;
  }
}

/** The file's text as the editor has it (unsaved changes included), or undefined when there is none. */
async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
