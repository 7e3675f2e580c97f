/**
 * Suggestions already paid for. Typing through a shown suggestion, or deleting back to where one
 * was asked for, finds it here and sends nothing: the cursor's text is the cached request's text
 * plus a start of the suggestion, and the text after the cursor has not changed.
 */

/** Characters around the cursor compared to tell that it is the same place in the same text. */
const ANCHOR = 256;
const MAX_ENTRIES = 64;

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
    if (!completion) return;
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
      // How much of the suggestion has been typed since: at most all of it but its last character.
      for (let typed = 0; typed < entry.completion.length && typed <= prefix.length; typed++) {
        const typedText = prefix.slice(prefix.length - typed);
        if (!entry.completion.startsWith(typedText)) continue;
        const base = prefix.slice(0, prefix.length - typed);
        if (base.slice(-ANCHOR) === entry.before || (base.length < ANCHOR && entry.before === base)) {
          this.hits++;
          return entry.completion.slice(typed);
        }
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
