/**
 * Suggestions already paid for. Typing through a shown suggestion, or deleting back to where one
 * was asked for, finds it here and sends nothing: the cursor's text is the cached request's text
 * plus a start of the suggestion, and the text after the cursor has not changed.
 */

/** Characters around the cursor compared to tell that it is the same place in the same text. */
const ANCHOR = 256;
const MAX_ENTRIES = 64;
/** Longer suggestions are not kept: a reply that long is not typed through. */
export const MAX_COMPLETION = 1_000;

interface Entry {
  document: string;
  /** The last ANCHOR characters before the cursor when it was asked for. */
  before: string;
  /** The first ANCHOR characters after the cursor. */
  after: string;
  completion: string;
}

export class PrefixCache {
  private entries: Entry[] = [];
  hits = 0;
  misses = 0;

  store(document: string, prefix: string, suffix: string, completion: string): void {
    if (!completion || completion.length > MAX_COMPLETION) return;
    const entry: Entry = {
      document,
      before: prefix.slice(-ANCHOR),
      after: suffix.slice(0, ANCHOR),
      completion,
    };
    this.entries = [entry, ...this.entries.filter((e) => !sameAnchor(e, entry))].slice(0, MAX_ENTRIES);
  }

  /** The rest of a cached suggestion at this cursor, or undefined. Counts hits and misses. */
  lookup(document: string, prefix: string, suffix: string): string | undefined {
    const after = suffix.slice(0, ANCHOR);
    for (const entry of this.entries) {
      if (entry.document !== document || entry.after !== after) continue;
      const typed = typedSince(entry, prefix);
      if (typed !== undefined) {
        this.hits++;
        return entry.completion.slice(typed);
      }
    }
    this.misses++;
    return undefined;
  }

  clear(document?: string): void {
    this.entries = document === undefined ? [] : this.entries.filter((e) => e.document !== document);
  }
}

function sameAnchor(a: Entry, b: Entry): boolean {
  return a.document === b.document && a.before === b.before && a.after === b.after;
}

/**
 * How much of the entry's suggestion has been typed at `prefix` (fewest first), or undefined: the
 * prefix must end with the anchor before the cursor then that much of the suggestion, all but its
 * last character at most. Linear in the text (one pass of Knuth–Morris–Pratt over the prefix's
 * end), whatever the suggestion repeats.
 */
function typedSince(entry: Entry, prefix: string): number | undefined {
  const whole = entry.before + entry.completion;
  const least = entry.before.length;
  if (least < ANCHOR) {
    // Asked near the document's start: the prefix is that start plus some of the suggestion.
    const fits = prefix.length >= least && prefix.length < whole.length && whole.startsWith(prefix);
    return fits ? prefix.length - least : undefined;
  }
  const borders = new Int32Array(whole.length);
  for (let i = 1, k = 0; i < whole.length; i++) {
    while (k > 0 && whole[i] !== whole[k]) k = borders[k - 1];
    if (whole[i] === whole[k]) k++;
    borders[i] = k;
  }
  // The longest end of the prefix that starts `whole`, then each shorter one.
  let state = 0;
  for (let i = Math.max(0, prefix.length - whole.length); i < prefix.length; i++) {
    while (state > 0 && (state === whole.length || prefix[i] !== whole[state])) state = borders[state - 1];
    if (prefix[i] === whole[state]) state++;
  }
  let found: number | undefined;
  for (let length = state; length >= least; length = borders[length - 1]) {
    if (length < whole.length) found = length - least;
    if (length === 0) break;
  }
  return found;
}
