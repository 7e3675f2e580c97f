/**
 * The YAML header of a rules file (`---` … `---` at its top), read tolerantly: the small part of
 * YAML that rules files use (Copilot's `applyTo`, Cline's `paths`, Continue's `globs`,
 * `alwaysApply` and `description`): `key: value` lines, quoted or plain scalars, booleans,
 * `[a, b]` flow lists and `- item` block lists. Anything else is reported and skipped, never
 * thrown: a bad header costs that field, not the file. Pure.
 */

export type FrontValue = string | boolean | number | string[];

export interface Frontmatter {
  /** The header's fields, own keys only (a `__proto__` line is reported, not set). */
  data: Record<string, FrontValue>;
  /** The text after the header (the whole text when there is none). */
  body: string;
  /** What could not be read, each as a short sentence naming the line. */
  problems: string[];
}

/** Longest header read; a longer one is reported and the file is read as having none. */
export const MAX_HEADER_CHARS = 16_000;
const MAX_PROBLEMS = 10;
const KEY = /^([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*:(.*)$/;

export function parseFrontmatter(text: string): Frontmatter {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const data: Record<string, FrontValue> = Object.create(null) as Record<string, FrontValue>;
  const problems: string[] = [];
  const open = /^---[ \t]*\r?\n/.exec(source);
  if (!open) return { data, body: source, problems };
  const rest = source.slice(open[0].length);
  const close = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (!close || close.index > MAX_HEADER_CHARS) {
    problems.push(
      close
        ? `the header is longer than ${MAX_HEADER_CHARS} characters`
        : 'the header has no closing "---" line',
    );
    return { data, body: source, problems };
  }
  const header = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length);
  const report = (line: number, what: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(`line ${line + 2}: ${what}`);
  };
  const lines = header.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const match = KEY.exec(line);
    if (!match) {
      report(i, `not a "key: value" line`);
      continue;
    }
    const key = match[1];
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
      report(i, `"${key}" is not a field name`);
      continue;
    }
    const raw = stripComment(match[2]).trim();
    if (raw === '' || raw === '|' || raw === '>') {
      // A block list (`- item` lines below) or a block scalar: read the indented lines.
      const items: string[] = [];
      const text: string[] = [];
      while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]) || /^-\s/.test(lines[i + 1]))) {
        i++;
        const item = /^\s*-\s+(.*)$/.exec(lines[i]);
        if (item && raw === '') items.push(scalarText(stripComment(item[1]).trim()));
        else text.push(lines[i].trim());
      }
      if (items.length) data[key] = items;
      else if (text.length) data[key] = raw === '>' ? text.join(' ') : text.join('\n');
      else data[key] = '';
      continue;
    }
    if (raw.startsWith('[')) {
      if (!raw.endsWith(']')) {
        report(i, `the list of "${key}" is not closed`);
        continue;
      }
      data[key] = splitFlow(raw.slice(1, -1))
        .map((item) => scalarText(item.trim()))
        .filter((item) => item !== '');
      continue;
    }
    data[key] = scalar(raw);
  }
  return { data, body, problems };
}

/** A plain scalar's value: booleans and numbers as such, quotes taken off. */
function scalar(raw: string): FrontValue {
  if (/^(true|True|TRUE|yes)$/.test(raw)) return true;
  if (/^(false|False|FALSE|no)$/.test(raw)) return false;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return scalarText(raw);
}

function scalarText(raw: string): string {
  if (raw.length >= 2 && ((raw[0] === '"' && raw.endsWith('"')) || (raw[0] === "'" && raw.endsWith("'")))) {
    const inner = raw.slice(1, -1);
    return raw[0] === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner.replace(/''/g, "'");
  }
  return raw;
}

/** A `#` comment after a value (outside quotes) is not part of it. */
function stripComment(value: string): string {
  let quote = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(value[i - 1]))) return value.slice(0, i);
  }
  return value;
}

/** The items of a flow list, split at commas outside quotes and braces (`{a,b}` globs stay whole). */
function splitFlow(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** A field as a list of strings: a list, or one string split at commas (outside braces). */
export function stringList(value: FrontValue | undefined): string[] {
  if (Array.isArray(value)) return value.filter((v) => v.trim() !== '').map((v) => v.trim());
  if (typeof value !== 'string') return [];
  return splitFlow(value)
    .map((v) => scalarText(v.trim()))
    .filter((v) => v !== '');
}
