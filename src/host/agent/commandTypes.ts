/**
 * What running a command takes and gives, on every platform (`commandRunner.ts` runs it on the
 * desktop; in VS Code for the Web, `commandRunner.web.ts` says why it cannot).
 */

export interface CommandRun {
  command: string;
  /** Absolute path of the folder it runs in. */
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * The workspace sets VS Code's terminal shell or environment: the command runs as our own
   * process, with the user's login shell (`$SHELL`), never in a terminal VS Code starts with the
   * workspace's profile, arguments or environment.
   */
  avoidTerminal?: boolean;
}

export interface CommandResult {
  /** The end of the output (ANSI escapes removed), at most `OUTPUT_KEEP_CHARS`. */
  output: string;
  /** Characters of output left out at the start. */
  dropped: number;
  exitCode: number | undefined;
  ended: 'exited' | 'timeout' | 'stopped' | 'failed';
  /** How it ran: in a shell-integrated terminal, or as a child process. */
  via: 'shellIntegration' | 'process';
  error?: string;
}

export const OUTPUT_KEEP_CHARS = 24_000;
/** How long a new terminal's shell has to report shell integration before the fallback runs. */
export const SHELL_INTEGRATION_WAIT_MS = 3000;

/** How the runner runs commands (tests choose the child-process path or the wait for shell integration). */
export interface CommandRunnerOptions {
  preferShellIntegration?: boolean;
  shellIntegrationWaitMs?: number;
  /** Where the commands' script files are written (a private folder each); the system's temp. */
  scriptFolder?: string;
  /** Where the terminal's shell-integration events go (one line each), for the log. */
  log?: (line: string) => void;
}

/** The result of a command where no process can run: what the model and the user read. */
export const NO_COMMANDS =
  'Commands are not available in VS Code for the Web: there are no processes in a browser, so no terminal and no stdio MCP servers. Open a remote window (GitHub Codespaces, a tunnel or Remote - SSH) to run commands; the file tools work here.';
