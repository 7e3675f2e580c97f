/**
 * The rules every reader of the workspace of ours shares (the agent's tools, their undo, the
 * checkpoints): a workspace folder is judged by its path as written and by its real path, against
 * the home folder's path as given and its real path. No `vscode` here, so the unit tier runs it in
 * plain Node; the pure parts are `broadFolderWhy` and `offLimitsPath` in core.
 */
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { broadFolderWhy } from '../../../core/agent/workspacePaths';

/** A workspace folder on disk: its real path, and why it is too broad to use, if it is. */
export interface JudgedFolder {
  real: string;
  /** In words, after "it is" (see `BROAD_WHY`); absent for a folder that may be used. */
  why?: string;
}

/**
 * Judges a folder on disk (`written` as the workspace names it): a disk's root, the home folder or
 * above it, a settings folder in the home folder (`~/.aws`, `~/.config`, …) or anything inside
 * one, or a system folder is too broad, by either of its paths. `os.homedir()` reads `$HOME`.
 */
export async function judgeFolder(written: string): Promise<JudgedFolder> {
  const home = homedir();
  const homes = [home, await realpath(home).catch(() => home)];
  const real = await realpath(written).catch(() => written);
  const why = broadFolderWhy([written, real], homes);
  return why ? { real, why } : { real };
}
