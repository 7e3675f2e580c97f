import type * as vscode from 'vscode';
import type { AgentToolChoices, PreparedCall, ToolSet, ToolSource, ToolSpec } from '../../core/agent/types';
import { ToolInputError } from '../../core/agent/types';
import { mcpServerKey } from '../../core/agent/externalTools';
import { VSCODE_MCP_PREFIX } from '../../core/agent/approvalPolicy';
import type { AgentToolSourceView } from '../../core/protocol/agentProtocol';

/** One kind of tools (our own set, MCP servers, other extensions' tools), as the agent sees it. */
export interface AgentToolProvider {
  /** Its sources now, each with the tools it offers (none while an MCP server is off). */
  sources(): readonly ProvidedSource[];
  prepare(name: string, args: unknown, signal: AbortSignal): Promise<PreparedCall>;
  readonly onDidChange?: vscode.Event<void>;
  /** Turns a source on or off for good (an MCP server starts or stops); absent: nothing to start. */
  setEnabled?(sourceId: string, enabled: boolean): Promise<unknown>;
}

export interface ProvidedSource {
  source: ToolSource;
  tools: readonly ToolSpec[];
  state?: AgentToolSourceView['state'];
  /** What turning it on starts (a command line or URL), or its error. */
  detail?: string;
  /** An MCP server VS Code runs: started and stopped there. */
  runBy?: 'vscode';
}

/**
 * The source id of an MCP server VS Code runs (its tools come through `vscode.lm.tools`), before
 * the server's name.
 */
export const VSCODE_MCP_SOURCE_PREFIX = VSCODE_MCP_PREFIX;

/**
 * Whether a source is a server VS Code runs that we run ourselves too (by its configuration name,
 * as VS Code writes it: lowercased, spaces as `-`): its tools are offered once, from our own
 * connection.
 */
function alsoOurs(source: { kind: string; id: string }, ours: ReadonlySet<string>): boolean {
  return (
    source.kind === 'mcp' &&
    source.id.startsWith(VSCODE_MCP_SOURCE_PREFIX) &&
    ours.has(mcpServerKey(source.id.slice(VSCODE_MCP_SOURCE_PREFIX.length)))
  );
}

/** The MCP servers we run ourselves now, by `mcpServerKey` of their names. */
function runningOwnServers(providers: readonly AgentToolProvider[]): Set<string> {
  const names = new Set<string>();
  for (const provider of providers)
    for (const { source, state, tools } of provider.sources())
      if (
        source.kind === 'mcp' &&
        !source.id.startsWith(VSCODE_MCP_SOURCE_PREFIX) &&
        (state === 'running' || (state === undefined && tools.length > 0))
      )
        names.add(mcpServerKey(source.id));
  return names;
}

/** Tool names a model may call: letters, digits, `_` and `-`, at most 64. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tools of one turn: every provider's, less the sources the chat turned off, each name once
 * (the first provider wins: our own set, then MCP, then other extensions).
 */
export class TurnTools implements ToolSet {
  private readonly owner = new Map<string, AgentToolProvider>();
  private readonly list: ToolSpec[] = [];

  constructor(
    providers: readonly AgentToolProvider[],
    choices: AgentToolChoices,
    /** Restricted Mode: only tools that read the workspace; nothing that edits or runs. */
    readOnlyOnly = false,
  ) {
    const off = new Set(choices.disabledSources ?? []);
    const ours = runningOwnServers(providers);
    for (const provider of providers)
      for (const { source, tools } of provider.sources()) {
        if (off.has(source.id) || alsoOurs(source, ours)) continue;
        for (const spec of tools) {
          if (readOnlyOnly && !(spec.readOnly && spec.source.kind === 'builtin')) continue;
          if (!TOOL_NAME.test(spec.name) || this.owner.has(spec.name)) continue;
          this.owner.set(spec.name, provider);
          this.list.push(spec);
        }
      }
  }

  specs(): readonly ToolSpec[] {
    return this.list;
  }

  /** Keeps only the tools `keep` names (a chat mode's narrowing); never adds one. */
  narrow(keep: ReadonlySet<string>): void {
    for (const spec of this.list) if (!keep.has(spec.name)) this.owner.delete(spec.name);
    this.list.splice(0, this.list.length, ...this.list.filter((spec) => keep.has(spec.name)));
  }

  prepare(name: string, args: unknown, signal: AbortSignal): Promise<PreparedCall> {
    const provider = this.owner.get(name);
    if (!provider)
      return Promise.reject(new ToolInputError(`There is no tool named "${name.slice(0, 100)}".`));
    return provider.prepare(name, args, signal);
  }
}

/** The picker's view of the providers' sources for a chat's choices. */
export function sourceViews(
  providers: readonly AgentToolProvider[],
  choices: AgentToolChoices,
): AgentToolSourceView[] {
  const off = new Set(choices.disabledSources ?? []);
  const ours = runningOwnServers(providers);
  return providers.flatMap((provider) =>
    provider
      .sources()
      .filter(({ source }) => !alsoOurs(source, ours))
      .map(({ source, tools, state, detail, runBy }) => {
        const view: AgentToolSourceView = {
          id: source.id,
          kind: source.kind,
          label: source.label,
          tools: tools.map((t) => t.name),
          enabled: !off.has(source.id) && (state === undefined || state === 'running'),
        };
        if (state) view.state = state;
        if (detail !== undefined) view.detail = detail;
        if (runBy) view.runBy = runBy;
        return view;
      }),
  );
}

/** The spec as the gateway takes it (OpenAI's function-tool shape). */
export function toGatewayTool(spec: ToolSpec): Record<string, unknown> {
  return {
    type: 'function',
    function: { name: spec.name, description: spec.description, parameters: spec.parameters },
  };
}
