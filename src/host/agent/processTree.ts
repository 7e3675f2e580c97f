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
 * Kills `root` and everything below it. `root` is frozen first (SIGSTOP), so a shell cannot go on
 * to the next command of a list (`sleep 2; touch X`) once its current one dies; then everything
 * below it, deepest first, each level given a moment to be reaped by its parent, still alive to
 * do it (a process killed after its parent would be left to the system to reap, which some
 * containers never do); then `root` with its process group when it leads one (a child spawned
 * `detached`), which catches anything started meanwhile.
 */
export async function killTree(root: number): Promise<void> {
  if (process.platform === 'win32') {
    killWindowsTree(root);
    return;
  }
  signal(root, 'SIGSTOP');
  const levels = await descendantLevels(root);
  for (let depth = levels.length - 1; depth >= 0; depth--) {
    for (const pid of levels[depth]) signal(pid, 'SIGKILL');
    await until(() => !levels[depth].some(isAlive), 150);
  }
  if (!signal(-root, 'SIGKILL')) signal(root, 'SIGKILL');
}

/** Resolves once `done()` holds, or after `ms`, checking every few milliseconds. */
function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve) => {
    const check = () => (done() || Date.now() >= deadline ? resolve() : setTimeout(check, 5));
    check();
  });
}

function killWindowsTree(pid: number): void {
  spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on(
    'error',
    () => {},
  );
}
