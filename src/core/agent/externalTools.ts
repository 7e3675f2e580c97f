/**
 * Tools that others describe: an MCP server's `tools/list` and the entries of `vscode.lm.tools`.
 * Their names, descriptions and schemas are outside data, parsed by type here; the names the
 * model calls are made from them, safe and unique; and what a tool gives back becomes text that
 * is never active (images, audio and resources are described, never fetched).
 */
import { isRecord, ownSlice } from '../../api/json';

/** What the model is told of a tool, checked. */
export interface ExternalToolInfo {
  /** The tool's own name, as its server or extension calls it. */
  name: string;
  description: string;
  /** A JSON Schema object (`{type: 'object'}` when the tool gave none or an odd one). */
  inputSchema: Record<string, unknown>;
  /** The tool says it only reads (MCP `annotations.readOnlyHint`); advisory only. */
  readOnlyHint?: boolean;
}

/** The longest description passed on to the model. */
export const MAX_TOOL_DESCRIPTION = 2_000;
/** The longest schema (as JSON) passed on; larger ones are replaced by a plain object schema. */
export const MAX_TOOL_SCHEMA_CHARS = 16_000;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** One tool entry as a server or an extension listed it, or `undefined` when it has no name. */
export function parseExternalTool(value: unknown): ExternalToolInfo | undefined {
  if (!isRecord(value)) return undefined;
  const name = value.name;
  if (typeof name !== 'string' || !name.trim() || name.length > 256) return undefined;
  const description =
    typeof value.description === 'string' ? ownSlice(value.description, MAX_TOOL_DESCRIPTION) : '';
  const info: ExternalToolInfo = { name, description, inputSchema: parseSchema(value.inputSchema) };
  const annotations = value.annotations;
  if (isRecord(annotations) && typeof annotations.readOnlyHint === 'boolean')
    info.readOnlyHint = annotations.readOnlyHint;
  return info;
}

/** Longest MCP server name taken from a `vscode.lm.tools` entry. */
const MAX_SERVER_NAME = 64;

/**
 * The MCP server a `vscode.lm.tools` entry comes from, as VS Code names the server in its own
 * configuration (`mcp.json`'s key, lowercased, spaces as `-`), or `undefined` for a tool that is
 * not an MCP server's.
 *
 * VS Code 1.139 tags a server's tools `mcp` and gives each the reference name
 * `<server>/<tool>` (`fullReferenceName`). Its tool names are no guide to the server: their
 * middle part comes from the name the server reports for itself, cut to 13 characters
 * (`mcp_everything_re_echo` for the server the user named `everything`). VS Code 1.100 tags them
 * `mcp` too but gives no reference name, and prefixes each tool with a short hash of the server's
 * id (`f1e_echo`): that prefix then stands for the server, which has no known name. The entry is
 * outside data.
 */
export function vscodeMcpServerOf(value: unknown): string | undefined {
  if (!isRecord(value) || typeof value.name !== 'string') return undefined;
  const tagged = Array.isArray(value.tags) && value.tags.includes('mcp');
  const reference = value.fullReferenceName;
  if (tagged && typeof reference === 'string') {
    const slash = reference.lastIndexOf('/');
    const server = reference.slice(0, slash).trim();
    if (slash > 0 && server && server.length <= MAX_SERVER_NAME && !server.includes('/')) return server;
  }
  const legacy = /^mcp_([^_]{1,64})_./.exec(value.name)?.[1];
  if (legacy || !tagged) return legacy;
  // VS Code 1.100 prefixes a server's tools with a short hash of its own id (`f1e_echo`).
  return /^([A-Za-z0-9]{1,16})_./.exec(value.name)?.[1] ?? UNNAMED_SERVER;
}

/** The server of an MCP tool whose entry names none. */
export const UNNAMED_SERVER = 'unnamed';

/** A server name as VS Code writes it in a tool's reference name, to compare two names. */
export function mcpServerKey(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

/** A list of tool entries; entries without a name, and repeats of a name, are dropped. */
export function parseExternalTools(value: unknown): ExternalToolInfo[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const out: ExternalToolInfo[] = [];
  for (const entry of value) {
    const info = parseExternalTool(entry);
    if (!info || seen.has(info.name)) continue;
    seen.add(info.name);
    out.push(info);
  }
  return out;
}

function parseSchema(value: unknown): Record<string, unknown> {
  const plain = { type: 'object', properties: {} };
  if (!isRecord(value) || (value.type !== undefined && value.type !== 'object')) return plain;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return plain; // cycles, BigInt
  }
  if (text === undefined || text.length > MAX_TOOL_SCHEMA_CHARS) return plain;
  const copy = JSON.parse(text) as Record<string, unknown>;
  return { ...copy, type: 'object' };
}

/**
 * The name the model calls: `<prefix>_<tool>` with every character outside `[A-Za-z0-9_-]`
 * turned into `_`, cut to 64, and made unique against `taken` by a numbered suffix. `taken` gets
 * the result added.
 */
export function modelToolName(prefix: string, tool: string, taken: Set<string>): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  const base = (prefix ? `${clean(prefix)}_${clean(tool)}` : clean(tool)).slice(0, 64) || 'tool';
  let name = base;
  for (let i = 2; taken.has(name) || !NAME.test(name); i++) {
    const suffix = `_${i}`;
    name = `${base.slice(0, 64 - suffix.length)}${suffix}`;
  }
  taken.add(name);
  return name;
}

/** The longest text a tool result turns into before the loop's own cap. */
export const MAX_EXTERNAL_RESULT_CHARS = 64_000;

/**
 * An MCP `CallToolResult` (or anything else) as the text the model reads: text parts joined;
 * images, audio, resource links and embedded resources named by their type and size; a result
 * with only `structuredContent` as its JSON. `isError` is kept.
 */
export function toolResultText(
  result: unknown,
  cap = MAX_EXTERNAL_RESULT_CHARS,
): { text: string; isError: boolean } {
  if (!isRecord(result)) return { text: '(the tool returned nothing readable)', isError: true };
  const isError = result.isError === true;
  const parts: string[] = [];
  if (Array.isArray(result.content)) {
    for (const part of result.content) parts.push(describePart(part));
  } else if (result.toolResult !== undefined) {
    parts.push(jsonText(result.toolResult));
  }
  if (!parts.length && result.structuredContent !== undefined) parts.push(jsonText(result.structuredContent));
  const text = parts.join('\n') || '(no output)';
  return { text: capText(text, cap), isError };
}

/** One content part as text. */
export function describePart(part: unknown): string {
  if (!isRecord(part)) return '[unreadable content part]';
  const size = (data: unknown) =>
    typeof data === 'string' ? `, about ${Math.floor((data.length * 3) / 4)} bytes` : '';
  const mime = (value: unknown) => (typeof value === 'string' ? value.slice(0, 100) : 'unknown type');
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : '';
    case 'image':
      return `[image: ${mime(part.mimeType)}${size(part.data)}; not shown]`;
    case 'audio':
      return `[audio: ${mime(part.mimeType)}${size(part.data)}; not played]`;
    case 'resource_link':
      return `[resource link: ${oneLine(part.uri)}${typeof part.name === 'string' ? ` (${oneLine(part.name)})` : ''}; not fetched]`;
    case 'resource': {
      const r = isRecord(part.resource) ? part.resource : {};
      if (typeof r.text === 'string') return `[resource ${oneLine(r.uri)}]\n${r.text}`;
      return `[resource: ${oneLine(r.uri)}, ${mime(r.mimeType)}${size(r.blob)}; not shown]`;
    }
    default:
      // vscode.LanguageModelTextPart has `value`, LanguageModelDataPart `mimeType` and `data`.
      if (typeof part.value === 'string') return part.value;
      if (typeof part.mimeType === 'string')
        return `[data: ${mime(part.mimeType)}${part.data instanceof Uint8Array ? `, ${part.data.byteLength} bytes` : ''}; not shown]`;
      return `[${typeof part.type === 'string' ? oneLine(part.type) : 'unknown'} content; not shown]`;
  }
}

function oneLine(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').slice(0, 300) : '?';
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? '(no output)';
  } catch {
    // Nested past the stack (a server's JSON parses at any depth): `String` would recurse too.
    return '[a value nested too deeply to show]';
  }
}

function capText(text: string, cap: number): string {
  if (text.length <= cap) return text;
  return `${text.slice(0, cap)}\n[… ${text.length - cap} more characters cut]`;
}

/** Arguments as the confirmation shows them: the full object, pretty JSON. */
export function prettyArguments(args: unknown): string {
  return jsonText(args ?? {});
}
