/**
 * The tools of `vscode.lm.tools` as a tool set of the agent: other extensions' tools and, where
 * VS Code has started them, the tools of the user's MCP servers (VS Code names those
 * `mcp_<…>_<tool>`, tag them `mcp` and, from 1.139, give them the reference name
 * `<server>/<tool>`: see `vscodeMcpServerOf`). Our own `gateway_*` tools are left out (the panel
 * has its own).
 *
 * The list is read again whenever it is asked for (each turn, each time the picker is posted),
 * not kept from when the panel loaded: VS Code (1.100 to 1.139 at least) gives extensions no
 * `vscode.lm.onDidChangeTools` event, so a server the user starts later through *MCP: List
 * Servers* would otherwise never show. Where such an event exists, it is heard too. Each call asks first, and runs through
 * `vscode.lm.invokeTool` with no invocation token: VS Code asks nothing then, so our
 * confirmation is the only guard. Where this VS Code has no `vscode.lm.tools`, the set is empty.
 *
 * VS Code's own tools (`run_in_terminal`, `vscode_editFile_internal`, `runSubagent`, … in 1.139:
 * listed, contributed by no extension) are left out too: they work only inside VS Code's chat
 * (some throw, some need its session), and the panel has its own read, edit and terminal tools.
 */
import * as vscode from 'vscode';
import {
  modelToolName,
  parseExternalTool,
  prettyArguments,
  toolResultText,
  vscodeMcpServerOf,
} from '../../core/agent/externalTools';
import type { ExternalToolInfo } from '../../core/agent/externalTools';
import { ToolInputError } from '../../core/agent/types';
import type { PreparedCall, ToolSet, ToolSource, ToolSpec } from '../../core/agent/types';
import { Disposable } from '../../core/util/lifecycle';
import { VSCODE_MCP_SOURCE_PREFIX } from './agentTools';

/** Tools we contribute ourselves; the panel offers its own instead. */
const OWN_PREFIX = 'gateway_';

/** The part of `vscode.lm` this set uses, each member possibly missing. */
interface LmToolsApi {
  tools?: readonly unknown[];
  onDidChangeTools?: vscode.Event<void>;
  invokeTool?: typeof vscode.lm.invokeTool;
}

export interface LmToolSource {
  source: ToolSource;
  tools: ToolSpec[];
  /** Set for an MCP server's tools: VS Code starts and stops it, not the panel. */
  runBy?: 'vscode';
}

export class LmToolSet extends Disposable implements ToolSet {
  private specList: ToolSpec[] = [];
  /** The names of the list last read, to tell whether it changed. */
  private listed: string | undefined;
  private readonly byName = new Map<string, { tool: ExternalToolInfo; spec: ToolSpec }>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when VS Code's list of tools changed. */
  readonly onDidChange = this.changed.event;

  /** @param lm VS Code's `vscode.lm` (the default); `null` for a VS Code without it. */
  constructor(private readonly lm: LmToolsApi | null = vscode.lm ?? null) {
    super();
    if (typeof lm?.onDidChangeTools === 'function') {
      this.register(
        lm.onDidChangeTools(() => {
          if (this.refresh()) this.changed.fire();
        }),
      );
    }
    this.refresh();
  }

  specs(): readonly ToolSpec[] {
    this.sync();
    return this.specList;
  }

  /** One source per extension, and one per MCP server VS Code runs. */
  sources(): LmToolSource[] {
    this.sync();
    const bySource = new Map<string, LmToolSource>();
    for (const spec of this.specList) {
      const key = `${spec.source.kind}:${spec.source.id}`;
      let entry = bySource.get(key);
      if (!entry) {
        entry = { source: spec.source, tools: [] };
        if (spec.source.kind === 'mcp') entry.runBy = 'vscode';
        bySource.set(key, entry);
      }
      entry.tools.push(spec);
    }
    return [...bySource.values()];
  }

  prepare(name: string, args: unknown, _signal?: AbortSignal): Promise<PreparedCall> {
    const found = this.byName.get(name);
    if (!found) return Promise.reject(new ToolInputError(`There is no tool named "${name}" in VS Code.`));
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return Promise.reject(new ToolInputError('The arguments must be a JSON object.'));
    const { tool, spec } = found;
    const invoke = this.lm?.invokeTool;
    return Promise.resolve({
      confirmation: {
        kind: 'tool',
        name: tool.name,
        source: spec.source.label,
        arguments: prettyArguments(args),
      },
      run: async (signal) => {
        if (typeof invoke !== 'function') return { text: 'This VS Code cannot run tools.', isError: true };
        const cancel = new vscode.CancellationTokenSource();
        const onAbort = () => cancel.cancel();
        signal.addEventListener('abort', onAbort);
        try {
          const result = await invoke(
            tool.name,
            { input: args, toolInvocationToken: undefined },
            cancel.token,
          );
          return toolResultText({ content: (result as { content?: unknown } | undefined)?.content });
        } catch (error) {
          if (signal.aborted) throw error;
          return {
            text: `The tool failed: ${error instanceof Error ? error.message : String(error)}`,
            isError: true,
          };
        } finally {
          signal.removeEventListener('abort', onAbort);
          cancel.dispose();
        }
      },
    });
  }

  /** Reads the list again; when it changed, the picker hears of it (after the caller is done). */
  private sync(): void {
    if (this.refresh()) queueMicrotask(() => this.changed.fire());
  }

  /** Reads `vscode.lm.tools`; true when its names differ from the last read. */
  private refresh(): boolean {
    const raw = readTools(this.lm);
    const names = raw
      .map((t) => {
        const name = (t as { name?: unknown } | null)?.name;
        return typeof name === 'string' ? name : '';
      })
      .join('\u0000');
    if (names === this.listed) return false;
    this.listed = names;
    this.byName.clear();
    this.specList = [];
    const taken = new Set<string>();
    const owners = contributedToolOwners();
    for (const entry of raw) {
      const tool = parseExternalTool(entry);
      if (!tool || tool.name.startsWith(OWN_PREFIX)) continue;
      const source = sourceOfTool(tool.name, owners, vscodeMcpServerOf(entry));
      if (!source) continue;
      const spec: ToolSpec = {
        name: modelToolName('', tool.name, taken),
        description: tool.description,
        parameters: tool.inputSchema,
        source,
        readOnly: false,
      };
      this.specList.push(spec);
      this.byName.set(spec.name, { tool, spec });
    }
    return true;
  }
}

/** `vscode.lm.tools`, copied, or nothing where it is missing or its getter throws. */
function readTools(lm: LmToolsApi | null): unknown[] {
  try {
    const tools = lm?.tools;
    return Array.isArray(tools) ? [...(tools as unknown[])] : [];
  } catch {
    return [];
  }
}

/** Which extension contributes each tool name (`contributes.languageModelTools`). */
function contributedToolOwners(): Map<string, { id: string; label: string }> {
  const owners = new Map<string, { id: string; label: string }>();
  for (const extension of vscode.extensions.all) {
    const manifest = extension.packageJSON as {
      displayName?: unknown;
      contributes?: { languageModelTools?: unknown };
    };
    const tools = manifest?.contributes?.languageModelTools;
    if (!Array.isArray(tools)) continue;
    const label =
      typeof manifest.displayName === 'string' && manifest.displayName ? manifest.displayName : extension.id;
    for (const tool of tools as unknown[]) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name === 'string') owners.set(name, { id: extension.id, label });
    }
  }
  return owners;
}

/**
 * The picker's source of a tool: its extension, or the MCP server VS Code runs it from (`server`,
 * from `vscodeMcpServerOf`); none for VS Code's own tools.
 */
export function sourceOfTool(
  name: string,
  owners: Map<string, { id: string; label: string }>,
  server: string | undefined,
): ToolSource | undefined {
  const owner = owners.get(name);
  if (owner) return { kind: 'extension', id: owner.id, label: owner.label };
  if (server)
    return { kind: 'mcp', id: `${VSCODE_MCP_SOURCE_PREFIX}${server}`, label: `${server} (MCP in VS Code)` };
  return undefined;
}
