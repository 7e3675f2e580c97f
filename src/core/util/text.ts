/** Small text helpers shared by the host and the webview. Pure: no `vscode`, no DOM. */

/** Escapes text for HTML element content and double-quoted attribute values (the only kind we write). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c] ?? c);
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};

/** "just now", "5 s ago", "3 min ago", "2 h ago", "4 d ago"; a date after a week. */
export function relativeTime(since: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - since) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
  return new Date(since).toLocaleDateString();
}

/** One line of at most `max` characters, with an ellipsis where it was cut. */
export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Outside text for inside a `<tag>` block of a prompt: it cannot open or close a tag of that name
 * (`</tag>`, `< / TAG`, written with spaces or in any case, loses its dash), nor hide text in
 * characters drawn as nothing (zero-width, bidi and tag characters: format characters, taken out).
 * `tag` is a name with one dash (`workspace-agent`).
 */
export function blockText(text: string, tag: string): string {
  const [head, tail] = tag.split('-');
  return text
    .replace(/\p{Cf}/gu, '')
    .replace(new RegExp(`<(\\s*\\/?\\s*)${head}-${tail}`, 'gi'), `<$1${head}_${tail}`);
}

/**
 * The first `max` characters of `text` (none for a negative or non-number `max`), less the half
 * of a surrogate pair the cut would split: a lone surrogate is not text, and some providers refuse
 * a request that carries one.
 */
export function cutAt(text: string, max: number): string {
  const chars = Math.max(0, Math.floor(max)) || 0;
  return text.length > chars ? text.slice(0, chars).replace(/[\uD800-\uDBFF]$/, '') : text;
}

/**
 * Outside text (from the gateway, a model, a stored file) made inert for places where VS Code
 * renders a little Markdown or icon syntax: notifications turn `[label](target)` into a clickable
 * link (and `command:` targets run), status-bar texts and quick picks turn `$(name)` into icons.
 * The text stays readable; only the syntax that would make it active is broken. Control
 * characters and line breaks become spaces, and very long text is cut.
 */
export function inertText(text: string, max = 2000): string {
  const flat = text
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\]\s*\(/g, '] (')
    .replace(/\$\(/g, '$ (')
    .replace(/<(?=[a-z]+:)/gi, '< ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A cost the gateway reported, as every view shows it: `$0.0400`, `$1.25`, `<$0.0001`. */
export function formatCost(cost: number): string {
  if (cost === 0) return '$0';
  if (cost < 0.0001) return '<$0.0001';
  const small = cost.toFixed(4);
  return `$${Number(small) >= 1 ? cost.toFixed(2) : small}`;
}

export const COST_NOT_REPORTED = 'cost not reported';
/** What an estimated cost is, for tooltips. */
export const ESTIMATE_NOTE = 'estimated from tokens × the catalog price: the gateway reported no cost';

/**
 * A cost the gateway may not have reported, as every view shows it: `$0.0400`, `~$0.0400
 * (estimated)` from tokens × price, or `cost not reported` (never `$0`, which is a free model).
 */
export function describeCost(usage: { cost?: number; estimatedCost?: number }): string {
  if (usage.cost !== undefined) return formatCost(usage.cost);
  if (usage.estimatedCost !== undefined) return `~${formatCost(usage.estimatedCost)} (estimated)`;
  return COST_NOT_REPORTED;
}
