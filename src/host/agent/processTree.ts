import { execFile, spawn } from 'node:child_process';

/**
 * Ending a command the agent started, with everything it started in turn: Stop and a timeout
 * must leave nothing running. On POSIX the children are found from `ps`; on Windows `taskkill /T`
 * walks the tree itself.
 */

/** The pids below `root` (not `root` itself), by depth: its children, their children, and so on. */
export function descendantLevels(root: number): Promise<number[][]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 2000 }, (error, stdout) => {
      if (error) return resolve([]);
      const children = new Map<number, number[]>();
      for (const line of stdout.split('\n')) {
        const [pid, ppid] = line.trim().split(/\s+/).map(Number);
        if (!Number.isInteger(pid) || !Number.isInteger(ppid)) continue;
        children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      }
      const levels: number[][] = [];
      let level = children.get(root) ?? [];
      for (let depth = 0; level.length > 0 && depth < 64; depth++) {
        levels.push(level);
        level = level.flatMap((pid) => children.get(pid) ?? []);
      }
      resolve(levels);
    });
  });
}

/** Whether a process runs the script `file` (its command line names the file's unique path). */
export function scriptRunning(file: string): Promise<boolean> {
  if (process.platform === 'win32') return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile(
      'ps',
      ['-A', '-ww', '-o', 'args='],
      { timeout: 2000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => resolve(!error && stdout.split('\n').some((line) => line.includes(file))),
    );
  });
}

/** Resolves once no process runs the script `file` (checked every 250 ms), or `stop` aborts. */
export async function untilScriptEnds(file: string, stop: AbortSignal): Promise<void> {
  while (!stop.aborted && (await scriptRunning(file)))
    await new Promise((resolve) => setTimeout(resolve, 250));
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

export function isAlive(pid: number): boolean {
  return signal(pid, 0);
}

/**
 * Kills `root` and everything below it. The whole tree is frozen first (SIGSTOP), so no shell in
 * it can go on to the next command of a list (`sleep 2; touch X`) once its current one dies; then
 * everything below it dies, deepest first, and `root` with its process group when it leads one (a
 * child spawned `detached`), which catches anything started meanwhile. A frozen parent cannot reap
 * its children, so they are left to the system's reaper when it dies.
 */
export async function killTree(root: number): Promise<void> {
  if (process.platform === 'win32') {
    killWindowsTree(root);
    return;
  }
  signal(root, 'SIGSTOP');
  // Every process below is frozen too before any dies: a command list now runs in a script's own
  // shell under the terminal's, and that shell went on to the list's next command (started anew,
  // out of reach) in the moment between its child's death and its own.
  let levels = await descendantLevels(root);
  for (const level of levels) for (const pid of level) signal(pid, 'SIGSTOP');
  // Anything started between the listing and the freeze is found, and frozen, by a second look.
  levels = await descendantLevels(root);
  for (const level of levels) for (const pid of level) signal(pid, 'SIGSTOP');
  for (let depth = levels.length - 1; depth >= 0; depth--)
    for (const pid of levels[depth]) signal(pid, 'SIGKILL');
  if (!signal(-root, 'SIGKILL')) signal(root, 'SIGKILL');
}

function killWindowsTree(pid: number): void {
  spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on(
    'error',
    () => {},
  );
}
