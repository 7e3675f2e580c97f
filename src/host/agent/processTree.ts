import { execFile, spawn } from 'node:child_process';

/**
 * Ending a command the agent started, with everything it started in turn: Stop and a timeout
 * must leave nothing running. On POSIX the children are found from `ps`; on Windows `taskkill /T`
 * walks the tree itself.
 */

/** The pids below `root` (not `root` itself), children before grandchildren. */
export function descendants(root: number): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 2000 }, (error, stdout) => {
      if (error) return resolve([]);
      const children = new Map<number, number[]>();
      for (const line of stdout.split('\n')) {
        const [pid, ppid] = line.trim().split(/\s+/).map(Number);
        if (!Number.isInteger(pid) || !Number.isInteger(ppid)) continue;
        children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      }
      const out: number[] = [];
      const queue = [root];
      while (queue.length > 0 && out.length < 10_000) {
        for (const child of children.get(queue.shift()!) ?? []) {
          out.push(child);
          queue.push(child);
        }
      }
      resolve(out);
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

/** Kills a process group (a child spawned `detached`) at once: SIGKILL, nothing to wait for. */
export function killGroup(pid: number): void {
  if (process.platform === 'win32') {
    killWindowsTree(pid);
    return;
  }
  if (!signal(-pid, 'SIGKILL')) signal(pid, 'SIGKILL');
}

/** Kills what a shell runs (its descendants), leaving the shell itself to show its prompt again. */
export async function killBelow(shellPid: number): Promise<void> {
  if (process.platform === 'win32') {
    for (const pid of await descendants(shellPid)) killWindowsTree(pid);
    return;
  }
  // Stop them first so none can start more while the list is read and they are killed.
  let pids = await descendants(shellPid);
  for (const pid of pids) signal(pid, 'SIGSTOP');
  pids = [...new Set([...pids, ...(await descendants(shellPid))])];
  for (const pid of pids) signal(pid, 'SIGKILL');
}

function killWindowsTree(pid: number): void {
  spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on(
    'error',
    () => {},
  );
}
