/**
 * Custom agents: `*.agent.md` files in a workspace's `.github/agents/` (as Copilot writes them)
 * and `.gateway/agents/`. A YAML header names the agent and may narrow what it does: `name`,
 * `description`, `tools` (a list of tool names), `model`, `maxSteps`; the text below it is the
 * agent's instructions.
 *
 * These files are workspace text, outside data: they can only narrow. A tool list keeps fewer of
 * the tools the user enabled, never adds one; `maxSteps` lowers the user's cap, never raises it; a
 * model is used only once the user accepted it (and only one the catalog has). Nothing here sets
 * approvals, the base URL, routing or costs: such fields are reported and ignored. A bad header
 * costs the field, never the file, and never throws. Pure.
 */
import { parseFrontmatter, stringList } from '../instructions/frontmatter';
import type { FrontValue } from '../instructions/frontmatter';
import { nameSkeleton } from '../util/confusables';
import { inertText } from '../util/text';
import { toModelId } from '../config/modelId';

/** The folders agent files are read from, relative to each workspace folder. */
export const AGENT_FOLDERS = ['.github/agents', '.gateway/agents'] as const;
export const AGENT_FILE_SUFFIX = '.agent.md';
/** Largest agent file read; the host skips a larger one and says why (text past it here is cut and reported). */
export const MAX_AGENT_FILE_CHARS = 64 * 1024;
/** Most agent files read in a workspace. */
export const MAX_AGENT_FILES = 40;
export const MAX_AGENT_NAME = 60;
const MAX_DESCRIPTION = 300;
const MAX_TOOLS = 100;
const MAX_STEPS = 1000;
const MAX_PROBLEMS = 12;
/**
 * The built-in modes' names as skeletons (`nameSkeleton`: NFKC, lookalike letters, case, invisible
 * characters), which no workspace agent takes: "Аsk" with a Cyrillic "А" is "Ask".
 */
const BUILTIN_SKELETONS = new Set(['Agent', 'Plan', 'Ask'].map(nameSkeleton));
/** What a tool name in an agent file may look like (ours, MCP's, Copilot's `server/*`). */
const TOOL_NAME = /^[A-Za-z0-9_.\-/*]{1,100}$/;

/** Fields Copilot's agent files have that mean nothing here: reported as not used. */
const NOT_USED = new Set(['argument-hint', 'target', 'handoffs', 'mcp-servers', 'infer', 'applyTo']);
/** Fields an agent file might try that only the user's settings decide: reported as refused. */
const REFUSED = new Set([
  'autoApprove',
  'approve',
  'approval',
  'baseUrl',
  'provider',
  'routing',
  'maxCost',
  'maxTurnCost',
  'maxDailyCost',
  'apiKey',
]);

export interface AgentFile {
  /** The mode id the chat stores: `custom:` and the path. */
  id: string;
  /** Workspace path (the folder's name first in a multi-root workspace). */
  path: string;
  /** Shown in the picker: one line, inert, at most MAX_AGENT_NAME characters. */
  name: string;
  description: string;
  /** The tools it keeps, as written (absent: every tool the mode allows). */
  tools?: string[];
  /** The model it asks for (used only when the user accepted it and the catalog has it). */
  model?: string;
  /** Its step cap (used only when lower than the user's). */
  maxSteps?: number;
  /** The body: what the model is told in this agent's turns, below our own rules. */
  instructions: string;
  /** What could not be used, each a short inert sentence. */
  problems: string[];
}

export const CUSTOM_MODE_PREFIX = 'custom:';

/**
 * Shown text from a file: control, bidirectional and zero-width characters taken out, Markdown
 * link and icon syntax broken, one line, cut to `max`.
 */
export function shownText(text: string, max: number): string {
  return inertText(text.replace(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, ''), max).trim();
}

/** The agent's name from its file name (`reviewer.agent.md` → `reviewer`). */
function nameFromPath(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.endsWith(AGENT_FILE_SUFFIX) ? base.slice(0, -AGENT_FILE_SUFFIX.length) : base;
}

/** One agent file, read tolerantly: every problem is reported, none is thrown. */
export function parseAgentFile(path: string, raw: string): AgentFile {
  const problems: string[] = [];
  const report = (what: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(shownText(what, 300));
  };
  let text = raw;
  if (text.length > MAX_AGENT_FILE_CHARS) {
    report(`the file is larger than ${MAX_AGENT_FILE_CHARS / 1024} KB; only its start is read`);
    text = text.slice(0, MAX_AGENT_FILE_CHARS);
  }
  const front = parseFrontmatter(text);
  for (const problem of front.problems) report(`header ${problem}`);
  const data = front.data;
  const field = (key: string): FrontValue | undefined => (Object.hasOwn(data, key) ? data[key] : undefined);

  const rawName = field('name');
  if (rawName !== undefined && typeof rawName !== 'string') report('"name" is not text');
  let name = shownText(typeof rawName === 'string' && rawName.trim() ? rawName : nameFromPath(path), 200);
  if (name.length > MAX_AGENT_NAME) {
    report(`"name" is longer than ${MAX_AGENT_NAME} characters`);
    name = `${name.slice(0, MAX_AGENT_NAME - 1)}…`;
  }
  if (!name) name = shownText(nameFromPath(path), MAX_AGENT_NAME) || 'agent';
  // A workspace agent named like a built-in mode, or with letters that look like its, would pass
  // for it in the closed picker (which also marks workspace agents, by their id).
  if (BUILTIN_SKELETONS.has(nameSkeleton(name))) {
    report(`"${name}" is the name of a built-in mode; it is shown as "${name} (workspace)"`);
    name = `${name} (workspace)`;
  }

  const rawDescription = field('description');
  if (rawDescription !== undefined && typeof rawDescription !== 'string') report('"description" is not text');
  const description = typeof rawDescription === 'string' ? shownText(rawDescription, MAX_DESCRIPTION) : '';

  const agent: AgentFile = {
    id: CUSTOM_MODE_PREFIX + path,
    path,
    name,
    description,
    instructions: front.body.trim(),
    problems,
  };

  const rawTools = field('tools');
  if (rawTools !== undefined) {
    if (typeof rawTools === 'boolean' || typeof rawTools === 'number') {
      report('"tools" is not a list of tool names; the agent gets no tools');
      agent.tools = [];
    } else {
      const names = stringList(rawTools);
      const good = names.filter((n) => TOOL_NAME.test(n));
      for (const bad of names.filter((n) => !TOOL_NAME.test(n)).slice(0, 3))
        report(`"${shownText(bad, 40)}" in "tools" is not a tool name`);
      if (good.length > MAX_TOOLS) report(`"tools" lists more than ${MAX_TOOLS}; the rest are left out`);
      agent.tools = [...new Set(good.slice(0, MAX_TOOLS))];
    }
  }

  const rawModel = field('model');
  if (rawModel !== undefined) {
    const model = toModelId(rawModel);
    if (model) agent.model = model;
    else report('"model" is not a model id; your own model is used');
  }

  const rawSteps = field('maxSteps');
  if (rawSteps !== undefined) {
    if (typeof rawSteps === 'number' && Number.isInteger(rawSteps) && rawSteps >= 1 && rawSteps <= MAX_STEPS)
      agent.maxSteps = rawSteps;
    else report(`"maxSteps" is not a whole number from 1 to ${MAX_STEPS}`);
  }

  for (const key of Object.keys(data)) {
    if (['name', 'description', 'tools', 'model', 'maxSteps'].includes(key)) continue;
    if (REFUSED.has(key)) report(`"${key}" cannot be set by an agent file (only your settings decide it)`);
    else if (NOT_USED.has(key)) report(`"${key}" is not used here`);
    else report(`"${shownText(key, 64)}" is not a field agent files have; it is ignored`);
  }
  return agent;
}

/**
 * The workspace's agents from their files (path and text), in path order, at most
 * MAX_AGENT_FILES; `problems` says what was left out.
 */
export function parseAgentFiles(files: ReadonlyArray<{ path: string; text: string }>): {
  agents: AgentFile[];
  problems: string[];
} {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const problems =
    sorted.length > MAX_AGENT_FILES
      ? [`More than ${MAX_AGENT_FILES} agent files: only the first ${MAX_AGENT_FILES} are read.`]
      : [];
  return { agents: sorted.slice(0, MAX_AGENT_FILES).map((f) => parseAgentFile(f.path, f.text)), problems };
}
