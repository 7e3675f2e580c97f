/**
 * `processTree.ts` in VS Code for the Web: no process is ever started there, so there is none to
 * find, watch or end.
 */

export function descendantLevels(root: number): Promise<number[][]> {
  void root;
  return Promise.resolve([]);
}

export function scriptRunning(file: string): Promise<boolean> {
  void file;
  return Promise.resolve(false);
}

export function untilScriptEnds(file: string, stop: AbortSignal): Promise<void> {
  void file;
  void stop;
  return Promise.resolve();
}

export function isAlive(pid: number): boolean {
  void pid;
  return false;
}

export function killTree(root: number): Promise<void> {
  void root;
  return Promise.resolve();
}
