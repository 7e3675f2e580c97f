import * as assert from 'node:assert/strict';
import { TurnTools, VSCODE_MCP_SOURCE_PREFIX, sourceViews } from '../../../src/host/agent/agentTools';
import type { AgentToolProvider, ProvidedSource } from '../../../src/host/agent/agentTools';
import type { ToolSource, ToolSpec } from '../../../src/core/agent/types';

function spec(name: string, source: ToolSource): ToolSpec {
  return { name, description: '', parameters: { type: 'object' }, source, readOnly: false };
}

function provider(sources: ProvidedSource[]): AgentToolProvider {
  return { sources: () => sources, prepare: () => Promise.reject(new Error('not here')) };
}

describe('TurnTools', () => {
  const ours: ToolSource = { kind: 'mcp', id: 'everything', label: 'everything (workspace)' };
  const vscodes: ToolSource = {
    kind: 'mcp',
    id: `${VSCODE_MCP_SOURCE_PREFIX}everything`,
    label: 'everything (MCP in VS Code)',
  };
  // VS Code names its copy's tools by its own prefix, which need not match ours.
  const vscodeTools = provider([
    {
      source: vscodes,
      tools: [spec('mcp_everything_re_echo', vscodes), spec('mcp_everything_re_add', vscodes)],
    },
  ]);

  it('a mode narrows the turn to the tools it names: the others are neither offered nor run', async () => {
    const tools = new TurnTools([vscodeTools], {});
    tools.narrow(new Set(['mcp_everything_re_add', 'not_offered']));
    assert.deepEqual(
      tools.specs().map((s) => s.name),
      ['mcp_everything_re_add'],
    );
    await assert.rejects(
      tools.prepare('mcp_everything_re_echo', {}, new AbortController().signal),
      /no tool named/,
    );
  });

  it('offers the tools of a server VS Code runs when we do not run it ourselves', () => {
    const hub = provider([{ source: ours, tools: [], state: 'off' }]);
    const tools = new TurnTools([hub, vscodeTools], {});
    assert.deepEqual(
      tools.specs().map((s) => s.name),
      ['mcp_everything_re_echo', 'mcp_everything_re_add'],
    );
    assert.deepEqual(
      sourceViews([hub, vscodeTools], {}).map((v) => v.id),
      ['everything', 'vscode-mcp:everything'],
    );
  });

  it('offers a server both run once, from our own connection', () => {
    const hub = provider([{ source: ours, tools: [spec('mcp_everything_echo', ours)], state: 'running' }]);
    const tools = new TurnTools([hub, vscodeTools], {});
    assert.deepEqual(
      tools.specs().map((s) => s.name),
      ['mcp_everything_echo'],
    );
    assert.deepEqual(
      sourceViews([hub, vscodeTools], {}).map((v) => v.id),
      ['everything'],
    );
  });

  it('knows a server both run by its configuration name in any case, and says VS Code runs its copy', () => {
    const upper: ToolSource = { kind: 'mcp', id: 'Everything', label: 'Everything (workspace)' };
    const hub = provider([{ source: upper, tools: [spec('mcp_Everything_echo', upper)], state: 'running' }]);
    assert.deepEqual(
      new TurnTools([hub, vscodeTools], {}).specs().map((s) => s.name),
      ['mcp_Everything_echo'],
    );
    const vscodeRun = provider([
      { source: vscodes, tools: [spec('mcp_everything_re_echo', vscodes)], runBy: 'vscode' },
    ]);
    const views = sourceViews([vscodeRun], {});
    assert.equal(views[0]?.runBy, 'vscode');
    assert.equal(views[0]?.state, undefined);
    assert.equal(views[0]?.enabled, true);
  });

  it('keeps a VS Code server whose name differs from every server we run', () => {
    const other: ToolSource = { kind: 'mcp', id: 'files', label: 'files' };
    const hub = provider([{ source: other, tools: [spec('mcp_files_read', other)], state: 'running' }]);
    const names = new TurnTools([hub, vscodeTools], {}).specs().map((s) => s.name);
    assert.deepEqual(names, ['mcp_files_read', 'mcp_everything_re_echo', 'mcp_everything_re_add']);
  });
});
