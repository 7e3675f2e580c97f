/**
 * Stands in for the `entities` package in the webview build (MODULE_STUBS of build/bundles.mjs).
 * markdown-it imports only `decodeHTMLStrict` from it, and calls it with one whole character
 * reference ending in `;`: `&name;`, or a `&#…;` its own numeric rule did not take. `entities`
 * carries the HTML5 table of named references as a packed trie (about 24 KB minified); the
 * webview's own HTML parser knows the same table (WHATWG's named character references), so the
 * reference is decoded by it, as the text of a <textarea> (raw text: no element is made, no script
 * runs, nothing loads) in a document of its own that is never shown.
 *
 * The parser also takes a legacy reference without its `;` (`&not` of `&notit;` gives `¬it;`),
 * and a numeric one without it; `decodeHTMLStrict` takes neither and gives the text back as it
 * was. Such a partial match shows in what is left: a whole reference never decodes to text ending
 * in `;` unless it is `;` itself (`&semi;`, `&#59;`), while a partial one keeps the rest of the
 * name and its `;`. test/webview/markdown.test.ts compares this with `entities`, name by name.
 */
const REFERENCE = /^&#?[a-z0-9]+;$/i;
/** Decoded references by their text; a reply uses few, so the map stays small, and it is capped. */
const decoded = new Map<string, string>();
const MAX_REMEMBERED = 4096;
let decoder: HTMLTextAreaElement | undefined;

export function decodeHTMLStrict(text: string): string {
  if (!REFERENCE.test(text)) return text;
  let result = decoded.get(text);
  if (result === undefined) {
    decoder ??= document.implementation.createHTMLDocument('').createElement('textarea');
    decoder.innerHTML = text;
    const value = decoder.value;
    result = value === ';' || !value.endsWith(';') ? value : text;
    if (decoded.size < MAX_REMEMBERED) decoded.set(text, result);
  }
  return result;
}
