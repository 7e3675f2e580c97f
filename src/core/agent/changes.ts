/** What an agent turn changed in the workspace, kept for *Undo this turn*. Pure. */
import type { FileChange } from './types';

/** Merges a call's changes into the turn's: the first `before` of a file stays, `after` is the latest. */
export function mergeChanges(into: FileChange[], changes: readonly FileChange[]): FileChange[] {
  const out = into.slice();
  for (const change of changes) {
    const i = out.findIndex((c) => c.folder === change.folder && c.path === change.path);
    if (i < 0) out.push({ ...change });
    else out[i] = { ...out[i], after: change.after };
  }
  return out;
}
