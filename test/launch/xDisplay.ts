/**
 * A virtual X display (Xvfb) and a real pointer on it (xdotool), for the one end-to-end check that
 * must not go through DevTools: a drag made with the mouse, which Chromium runs through its own
 * drag loop and security checks exactly as it does for a person. Both are Debian packages that CI
 * installs; where they are missing, callers report the check as pending rather than passed.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface XDisplay {
  /** The DISPLAY value, e.g. `:93`. */
  readonly display: string;
  /** Runs xdotool on this display. */
  xdotool(...args: string[]): void;
  stop(): Promise<void>;
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Why a pointer check cannot run here, or undefined when it can. */
export function pointerUnavailable(): string | undefined {
  const missing = ['Xvfb', 'xdotool'].filter((command) => !onPath(command));
  return missing.length
    ? `needs ${missing.join(' and ')} (Debian packages xvfb and xdotool) for a real pointer drag`
    : undefined;
}

/** Starts Xvfb on the first free display from :90 and waits until it takes connections. */
export async function startXDisplay(): Promise<XDisplay> {
  for (let number = 90; number < 140; number++) {
    if (existsSync(`/tmp/.X${number}-lock`) || existsSync(`/tmp/.X11-unix/X${number}`)) continue;
    const display = `:${number}`;
    const server: ChildProcess = spawn(
      'Xvfb',
      [display, '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && server.exitCode === null && !existsSync(`/tmp/.X11-unix/X${number}`))
      await new Promise((resolve) => setTimeout(resolve, 50));
    if (server.exitCode !== null) continue; // Taken by a server that left no lock: try the next.
    if (!existsSync(`/tmp/.X11-unix/X${number}`)) {
      server.kill();
      throw new Error(`Xvfb did not start on ${display}`);
    }
    return {
      display,
      xdotool(...args) {
        const result = spawnSync('xdotool', args, {
          env: { ...process.env, DISPLAY: display },
          encoding: 'utf8',
        });
        if (result.status !== 0) throw new Error(`xdotool ${args.join(' ')} failed: ${result.stderr}`);
      },
      async stop() {
        if (server.exitCode === null) {
          server.kill();
          await exited;
        }
      },
    };
  }
  throw new Error('No free X display between :90 and :139');
}
