import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { sameCommandLine, scriptCommandLine, scriptShell, scriptText } from '../../core/agent/commandScript';
import { OUTPUT_KEEP_CHARS, SHELL_INTEGRATION_WAIT_MS } from './commandTypes';
import type { CommandResult, CommandRun, CommandRunnerOptions } from './commandTypes';
import { killTree, scriptRunning, untilScriptEnds } from './processTree';

/**
 * Runs a command the user approved, where the user can watch it: in a VS Code terminal whose
 * output shell integration captures, when the shell has it; otherwise as a child process whose
 * output is mirrored into a terminal of our own (a pseudoterminal). Either way the result has the
 * output's end, the exit code, and whether a timeout or Stop ended it; Stop and the timeout kill
 * the command and everything it started at once.
 *
 * The command never passes through a shell's line editor, which would act on what it holds
 * (`^U`, `^H`, a tab's completion): its exact text is written to a script file of its own
 * (private: a new folder of mode 0700, the file 0600), and the terminal is given only
 * `<shell> <file>`, in plain ASCII (see `core/agent/commandScript`). The child process runs the
 * same file with the same shell. On Windows the command runs as a child process through `cmd`,
 * whose command line no line editor reads.
 */

export { NO_COMMANDS, OUTPUT_KEEP_CHARS, SHELL_INTEGRATION_WAIT_MS } from './commandTypes';
export type { CommandResult, CommandRun, CommandRunnerOptions } from './commandTypes';

/**
 * Pagers and prompts would wait for a user who is not there. On Windows, `cmd` would look for a
 * program in the command's folder (the repository's own `git.cmd`) before PATH: not with this.
 */
const QUIET_ENV = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  ...(process.platform === 'win32' ? { NoDefaultCurrentDirectoryInExePath: '1' } : {}),
};

// CSI, OSC (ended by BEL or ST) and the two-character escapes a terminal stream carries.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** Output kept from the end: the end of a build or a test run is where the answer is. */
class Tail {
  private text = '';
  dropped = 0;
  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > OUTPUT_KEEP_CHARS * 2) this.trim();
  }
  private trim(): void {
    const cut = this.text.length - OUTPUT_KEEP_CHARS;
    if (cut > 0) {
      this.dropped += cut;
      this.text = this.text.slice(cut);
    }
  }
  value(): string {
    this.text = this.text.replace(ANSI, '').replace(/\r\n?/g, '\n');
    this.trim();
    return this.text;
  }
}

export class CommandRunner implements vscode.Disposable {
  /** Once a shell has shown it has no shell integration, later commands do not wait for it. */
  private integrationMissing = false;
  private readonly terminals = new Set<vscode.Terminal>();
  /**
   * Terminals of finished commands, oldest first: only the last few are kept open. None is reused:
   * a shell keeps the aliases, functions, variables and traps of earlier commands, so the next
   * command's confirmation would not show what really runs.
   */
  private readonly finished: vscode.Terminal[] = [];

  constructor(private readonly options: CommandRunnerOptions = {}) {}

  async run(run: CommandRun): Promise<CommandResult> {
    if (run.signal.aborted)
      return { output: '', dropped: 0, exitCode: undefined, ended: 'stopped', via: 'process' };
    if (process.platform === 'win32') return this.asProcess(run, undefined);
    let script: Script;
    try {
      script = await writeScript(run.command, this.options.scriptFolder ?? tmpdir());
    } catch (error) {
      const message = `its script file could not be written: ${error instanceof Error ? error.message : String(error)}`;
      return { output: '', dropped: 0, exitCode: undefined, ended: 'failed', via: 'process', error: message };
    }
    try {
      // VS Code's default shell follows the terminal settings, which the workspace may set.
      const shell = scriptShell(run.avoidTerminal ? process.env.SHELL : vscode.env.shell);
      const line = scriptCommandLine(shell, script.file);
      if (
        line &&
        !run.avoidTerminal &&
        this.options.preferShellIntegration !== false &&
        !this.integrationMissing
      ) {
        const result = await this.inTerminal(run, line, script.file);
        if (result) return result;
        this.integrationMissing = true;
      }
      return await this.asProcess(run, { shell, file: script.file });
    } finally {
      await script.remove();
    }
  }

  /**
   * In a terminal with shell integration, typing `line` (which runs the script), or undefined
   * (nothing ran) when it has none.
   */
  private async inTerminal(run: CommandRun, line: string, file: string): Promise<CommandResult | undefined> {
    const deadline = Date.now() + run.timeoutMs;
    const terminal = vscode.window.createTerminal({
      name: 'Gateway AI: agent',
      cwd: run.cwd,
      env: QUIET_ENV,
      iconPath: new vscode.ThemeIcon('hubot'),
    });
    this.terminals.add(terminal);
    const created = Date.now();
    const integration = await shellIntegration(
      terminal,
      this.options.shellIntegrationWaitMs ?? SHELL_INTEGRATION_WAIT_MS,
      run.signal,
    );
    const log = this.options.log ?? (() => undefined);
    log(
      integration
        ? `The agent's terminal has shell integration, after ${Date.now() - created} ms.`
        : `The agent's terminal has no shell integration after ${Date.now() - created} ms.`,
    );
    if (!integration) {
      this.terminals.delete(terminal);
      terminal.dispose();
      if (run.signal.aborted)
        return { output: '', dropped: 0, exitCode: undefined, ended: 'stopped', via: 'shellIntegration' };
      return undefined;
    }
    terminal.show(true);
    const tail = new Tail();
    const reading: Promise<void>[] = [];
    const read = (from: vscode.TerminalShellExecution) =>
      reading.push(
        (async () => {
          for await (const chunk of from.read()) tail.push(chunk);
        })().catch(() => undefined),
      );
    const execution = integration.executeCommand(line);
    read(execution);
    // VS Code matches the command the shell reports to the one sent by its exact line. Under load
    // the shell was seen to report the line with a line break inside it: a new execution then
    // stood for the command, and its end never reached a listener of the one sent. The terminal
    // is this command's alone: a command started in it whose line is the one sent, line breaks
    // and spaces aside, is the one sent.
    let reported: vscode.TerminalShellExecution | undefined;
    const started = vscode.window.onDidStartTerminalShellExecution((event) => {
      if (event.terminal !== terminal || reported) return;
      if (event.execution === execution) reported = execution;
      else if (
        // As the shell reported it (with its session's nonce), never as output printed it.
        event.execution.commandLine.isTrusted &&
        event.execution.commandLine.confidence === vscode.TerminalShellExecutionCommandLineConfidence.High &&
        sameCommandLine(event.execution.commandLine.value, line)
      ) {
        reported = event.execution;
        read(reported);
        log(
          `The terminal reports the command with its line changed (${JSON.stringify(event.execution.commandLine.value.slice(0, 200))}); it is taken as the one sent.`,
        );
      } else
        log(
          `The terminal reports a command that is not the one sent: ${JSON.stringify(event.execution.commandLine.value.slice(0, 200))}.`,
        );
    });
    let endListener: vscode.Disposable | undefined;
    const ended = new Promise<number | undefined>((resolve) => {
      endListener = vscode.window.onDidEndTerminalShellExecution((event) => {
        if (event.execution !== execution && event.execution !== reported) return;
        resolve(event.exitCode);
      });
    });
    let outcome = await raceEnd(ended, run);
    started.dispose();
    endListener?.dispose();
    // VS Code takes the end marker from anything the terminal prints, so a command's output (a
    // file it shows) can end it early. An end while the script still runs is not believed: the
    // command is waited for, by its process, and Stop and the timeout still reach it; its exit
    // code, only that output's word, is unknown.
    if (outcome.kind === 'exited' && (await scriptRunning(file))) {
      log(
        'The terminal reported the command ended while it still runs (its output may hold the end marker); waiting for its process.',
      );
      outcome = await raceEnd(
        untilScriptEnds(file, run.signal).then(() => undefined),
        {
          ...run,
          timeoutMs: Math.max(0, deadline - Date.now()),
        },
      );
      if (outcome.kind === 'exited') outcome = { kind: 'exited', code: undefined };
    }
    if (outcome.kind !== 'exited') {
      // The shell goes too: left alive, it would run the rest of a command list (`sleep 2; touch X`).
      const pid = await terminal.processId;
      if (pid) await killTree(pid);
      this.terminals.delete(terminal);
      terminal.dispose();
    } else {
      await Promise.race([Promise.all(reading), new Promise((r) => setTimeout(r, 200))]);
      this.retire(terminal);
    }
    return {
      output: tail.value(),
      dropped: tail.dropped,
      exitCode: outcome.kind === 'exited' ? outcome.code : undefined,
      ended: outcome.kind,
      via: 'shellIntegration',
    };
  }

  /**
   * As a child process in its own process group, its output shown in a pseudoterminal: `shell`
   * running the script file, or (on Windows, `script` undefined) the command through `cmd`.
   */
  private asProcess(
    run: CommandRun,
    script: { shell: string; file: string } | undefined,
  ): Promise<CommandResult> {
    const write = new vscode.EventEmitter<string>();
    const tail = new Tail();
    const show = (text: string) => write.fire(text.replace(/\r?\n/g, '\r\n'));
    let child: ReturnType<typeof spawn> | undefined;
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      open: () => show(`$ ${run.command}\n`),
      // The user closed the terminal: the command goes with it.
      close: () => {
        if (child?.pid && child.exitCode === null) void killTree(child.pid);
      },
    };
    const terminal = vscode.window.createTerminal({
      name: `Gateway AI: ${shortName(run.command)}`,
      pty,
      iconPath: new vscode.ThemeIcon('hubot'),
    });
    this.terminals.add(terminal);
    terminal.show(true);
    return new Promise<CommandResult>((resolve) => {
      try {
        const options = {
          cwd: run.cwd,
          detached: process.platform !== 'win32',
          windowsHide: true,
          env: { ...process.env, ...QUIET_ENV },
          stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
        };
        child = script
          ? spawn(script.shell, [script.file], options)
          : spawn(run.command, { ...options, shell: true });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        show(`\n${message}\n`);
        write.dispose();
        resolve({
          output: '',
          dropped: 0,
          exitCode: undefined,
          ended: 'failed',
          via: 'process',
          error: message,
        });
        return;
      }
      const spawned = child;
      const onData = (data: Buffer) => {
        const text = data.toString('utf8');
        tail.push(text);
        show(text);
      };
      spawned.stdout?.on('data', onData);
      spawned.stderr?.on('data', onData);
      let startError: string | undefined;
      spawned.on('error', (error) => (startError = error.message));
      const exited = new Promise<number | undefined>((done) =>
        spawned.on('close', (code) => done(code ?? undefined)),
      );
      void raceEnd(exited, run, () => {
        if (spawned.pid) void killTree(spawned.pid);
      }).then((outcome) => {
        const note =
          outcome.kind === 'exited'
            ? `\n[exit code ${outcome.code ?? 'unknown'}]\n`
            : outcome.kind === 'timeout'
              ? '\n[stopped: out of time]\n'
              : '\n[stopped]\n';
        show(note);
        this.retire(terminal);
        resolve({
          output: tail.value(),
          dropped: tail.dropped,
          exitCode: outcome.kind === 'exited' ? outcome.code : undefined,
          ended: startError && outcome.kind === 'exited' ? 'failed' : outcome.kind,
          via: 'process',
          ...(startError ? { error: startError } : {}),
        });
      });
    });
  }

  /** Keeps the last few finished command terminals open for the user to read, closing older ones. */
  private retire(terminal: vscode.Terminal): void {
    this.finished.push(terminal);
    while (this.finished.length > KEEP_FINISHED_TERMINALS) {
      const old = this.finished.shift()!;
      this.terminals.delete(old);
      old.dispose();
    }
  }

  dispose(): void {
    this.finished.length = 0;
    for (const terminal of this.terminals) terminal.dispose();
    this.terminals.clear();
  }
}

type Outcome = { kind: 'exited'; code: number | undefined } | { kind: 'timeout' } | { kind: 'stopped' };

/** The command's end, its timeout or Stop, whichever comes first; `kill` runs at once on the latter two. */
function raceEnd(exited: Promise<number | undefined>, run: CommandRun, kill?: () => void): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const finish = (outcome: Outcome) => {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      if (outcome.kind !== 'exited') kill?.();
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'stopped' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), run.timeoutMs);
    run.signal.addEventListener('abort', onAbort, { once: true });
    if (run.signal.aborted) onAbort();
    void exited.then((code) => finish({ kind: 'exited', code }));
  });
}

/** The terminal's shell integration, once it reports it (within `waitMs`), or undefined. */
function shellIntegration(
  terminal: vscode.Terminal,
  waitMs: number,
  signal: AbortSignal,
): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) return Promise.resolve(terminal.shellIntegration);
  return new Promise((resolve) => {
    const done = (value: vscode.TerminalShellIntegration | undefined) => {
      clearTimeout(timer);
      listener.dispose();
      closed.dispose();
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(undefined);
    const listener = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal === terminal) done(event.shellIntegration);
    });
    const closed = vscode.window.onDidCloseTerminal((closedTerminal) => {
      if (closedTerminal === terminal) done(undefined);
    });
    const timer = setTimeout(() => done(terminal.shellIntegration), waitMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const KEEP_FINISHED_TERMINALS = 3;

interface Script {
  file: string;
  /** Deletes the file and its folder; never throws. */
  remove(): Promise<void>;
}

/** The command's exact text in a new private folder (0700), as `command.sh` (0600, created new). */
async function writeScript(command: string, parent: string): Promise<Script> {
  const folder = await mkdtemp(path.join(parent, 'gateway-command-'));
  const remove = () => rm(folder, { recursive: true, force: true }).catch(() => undefined);
  try {
    const file = path.join(folder, 'command.sh');
    await writeFile(file, scriptText(command), { encoding: 'utf8', mode: 0o600, flag: 'wx' });
    return { file, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

function shortName(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
