/**
 * The folder rules of `folderRules.ts` in VS Code for the Web: there is no home folder and no
 * link to resolve, so a folder is judged by its path alone (a file system's root, a system folder
 * such as `/etc` of a local folder opened in vscode.dev). The secret-file rules are name based and
 * apply unchanged (`offLimitsPath` in core).
 */
import { broadFolderWhy } from '../../../core/agent/workspacePaths';

export interface JudgedFolder {
  real: string;
  why?: string;
}

export function judgeFolder(written: string): Promise<JudgedFolder> {
  // With no home folder, only the home-free rules (root, system) can apply.
  const why = broadFolderWhy([written], ['']);
  return Promise.resolve(why ? { real: written, why } : { real: written });
}
