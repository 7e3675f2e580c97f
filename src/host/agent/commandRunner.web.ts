/**
 * `commandRunner.ts` in VS Code for the Web, where no process can start: the agent is not offered
 * `run_command` there, and a command that reaches the runner anyway ends as `failed` with the
 * reason (`NO_COMMANDS`), a result the model reads, never an exception that ends the turn.
 */
import type * as vscode from 'vscode';
import { NO_COMMANDS } from './commandTypes';
import type { CommandResult, CommandRun, CommandRunnerOptions } from './commandTypes';

export { NO_COMMANDS, OUTPUT_KEEP_CHARS, SHELL_INTEGRATION_WAIT_MS } from './commandTypes';
export type { CommandResult, CommandRun, CommandRunnerOptions } from './commandTypes';

export class CommandRunner implements vscode.Disposable {
  constructor(private readonly options: CommandRunnerOptions = {}) {}

  run(run: CommandRun): Promise<CommandResult> {
    this.options.log?.('A command was asked for, but VS Code for the Web runs no processes.');
    const ended = run.signal.aborted ? 'stopped' : 'failed';
    return Promise.resolve({
      output: '',
      dropped: 0,
      exitCode: undefined,
      ended,
      via: 'process',
      error: NO_COMMANDS,
    });
  }

  dispose(): void {}
}
