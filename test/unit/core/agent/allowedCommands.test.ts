/**
 * *Always allow* and commands: never the whole run_command tool, only one exact command line in
 * one folder, kept from storage (outside data) only when well formed.
 */
import * as assert from 'node:assert/strict';
import {
  MAX_ALLOWED_COMMANDS,
  commandAllowed,
  mayAlwaysAllow,
  parseAllowedCommands,
  withAllowedCommand,
} from '../../../../src/core/agent/approvalPolicy';
import type { Confirmation, ToolSpec } from '../../../../src/core/agent/types';

function spec(name: string, kind: ToolSpec['source']['kind'] = 'builtin'): ToolSpec {
  return { name, description: '', parameters: {}, source: { kind, id: 'x', label: 'x' }, readOnly: false };
}

const command = (text: string, cwd = '/w'): Confirmation => ({
  kind: 'command',
  command: text,
  cwd,
  timeoutSeconds: 120,
});

describe('approval policy: commands allowed always', () => {
  it('never allows our run_command wholesale; our edit tools may be', () => {
    assert.equal(mayAlwaysAllow(spec('run_command')), false);
    assert.equal(mayAlwaysAllow(spec('edit_file')), true);
    assert.equal(mayAlwaysAllow(spec('create_file')), true);
  });

  it("Always allow this tool on another extension's tool: never offered nor kept, for any extension or MCP server tool", () => {
    // A package installer another extension offers through vscode.lm.tools would keep running
    // commands in every later workspace: Allow in this chat is the widest it gets.
    assert.equal(mayAlwaysAllow(spec('install_package', 'extension')), false);
    assert.equal(mayAlwaysAllow(spec('run_command', 'mcp')), false);
    assert.equal(mayAlwaysAllow({ ...spec('read_docs', 'mcp'), readOnly: true }), false);
    // A server VS Code runs is known only by the names its definer chose: never kept always.
    const vscodeRun = spec('create_issue', 'extension');
    assert.equal(
      mayAlwaysAllow({ ...vscodeRun, source: { ...vscodeRun.source, id: 'vscode-mcp:github' } }),
      false,
    );
  });

  it('allows only the same command line, byte for byte, in the same folder', () => {
    const list = withAllowedCommand([], { command: 'npm test', cwd: '/w' });
    assert.equal(commandAllowed(list, command('npm test')), true);
    for (const other of [command('npm test '), command('npm test; rm -rf x'), command('npm test', '/w/sub')])
      assert.equal(commandAllowed(list, other), false, JSON.stringify(other));
    assert.equal(commandAllowed(list, { kind: 'edit', path: 'npm test', created: false, diff: '' }), false);
    assert.equal(commandAllowed(list, undefined), false);
  });

  it('keeps each command once, newest last, and a bounded list', () => {
    let list = withAllowedCommand([], { command: 'a', cwd: '/w' });
    list = withAllowedCommand(list, { command: 'b', cwd: '/w' });
    list = withAllowedCommand(list, { command: 'a', cwd: '/w' });
    assert.deepEqual(list, [
      { command: 'b', cwd: '/w' },
      { command: 'a', cwd: '/w' },
    ]);
    for (let i = 0; i < MAX_ALLOWED_COMMANDS + 10; i++)
      list = withAllowedCommand(list, { command: `c${i}`, cwd: '/w' });
    assert.equal(list.length, MAX_ALLOWED_COMMANDS);
    assert.equal(list.at(-1)?.command, `c${MAX_ALLOWED_COMMANDS + 9}`);
  });

  it('reads stored entries as outside data', () => {
    assert.deepEqual(parseAllowedCommands(undefined), []);
    assert.deepEqual(parseAllowedCommands({ command: 'x', cwd: '/w' }), []);
    assert.deepEqual(
      parseAllowedCommands([
        { command: 'ok', cwd: '/w', extra: 1 },
        { command: 'ok', cwd: '/w' },
        { command: '', cwd: '/w' },
        { command: 1, cwd: '/w' },
        { command: 'x'.repeat(10_001), cwd: '/w' },
        null,
        'run_command',
      ]),
      [{ command: 'ok', cwd: '/w' }],
    );
  });
});
