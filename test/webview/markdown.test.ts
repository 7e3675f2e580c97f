/**
 * Character references in replies. The webview build decodes them with the page's own HTML parser
 * (src/webview/domEntities.ts) instead of the `entities` package markdown-it comes with: here the
 * page renders every named reference (and near misses) and each must read as `entities` decodes it.
 */
import * as assert from 'assert';
import { decodeHTMLStrict, encodeHTML } from 'entities';
import MarkdownIt from 'markdown-it';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

/** One name per character that has one (as `entities` encodes it), and names of two characters. */
function namedReferences(): string[] {
  const names = new Set<string>();
  for (let code = 0; code <= 0x1ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const encoded = encodeHTML(String.fromCodePoint(code));
    if (/^&[a-z][a-z0-9]+;$/i.test(encoded)) names.add(encoded);
  }
  for (const pair of ['&nGt;', '&nLt;', '&bne;', '&fjlig;', '&NotEqualTilde;', '&nvlt;', '&ThickSpace;'])
    names.add(pair);
  return [...names];
}

/** Near misses: a legacy name with more after it, the wrong case, no such name, `;` itself. */
const NEAR_MISSES = [
  '&notit;',
  '&ampx;',
  '&copyx;',
  '&AMP;',
  '&Amp;',
  '&COPY;',
  '&NOTIN;',
  '&foo;',
  '&semi;',
];

describe('chat webview: character references', function () {
  this.timeout(60_000);
  const fixture = useChatPage();

  it('decodes every named reference, and no near miss, exactly as the entities package does', async () => {
    const { chat } = fixture;
    const references = namedReferences();
    // With something after each name as well, where a legacy name is a prefix of it.
    const cases = [...references, ...references.map((ref) => `${ref.slice(0, -1)}x;`), ...NEAR_MISSES];
    assert.ok(references.length > 1400, `${references.length} names`);
    const turn = assistantTurn(cases.map((ref) => `- ${ref}`).join('\n'));
    await chat.send(initMessage([userTurn('entities?'), turn]));
    const items = await chat.page
      .locator(`[data-turn-id="${turn.id}"] .reply li`)
      .evaluateAll((elements): string[] =>
        elements.map((element) => (element as unknown as { textContent: string | null }).textContent ?? ''),
      );
    assert.strictEqual(items.length, cases.length);
    const wrong = cases.filter((ref, i) => items[i] !== decodeHTMLStrict(ref));
    assert.deepStrictEqual(
      wrong.map((ref) => [ref, items[cases.indexOf(ref)], decodeHTMLStrict(ref)]),
      [],
    );
  });

  it('decodes references in link targets as markdown-it with the entities package does', async () => {
    const { chat } = fixture;
    // The numeric forms markdown-it's own rule does not take reach the decoder here.
    const targets = [
      '&amp;',
      '&notin;',
      '&notit;',
      '&#123456789;',
      '&#0000000065;',
      '&#12ab;',
      '&#xzz;',
      '&#0000000128;',
    ];
    const md = new MarkdownIt();
    const expected = targets.map((ref) => {
      const inline = md.parseInline(`[a](https://example.com/?q=${ref})`, {})[0];
      return inline.children?.find((token) => token.type === 'link_open')?.attrGet('href');
    });
    const turn = assistantTurn(targets.map((ref) => `- [a](https://example.com/?q=${ref})`).join('\n'));
    await chat.send(initMessage([userTurn('links?'), turn]));
    const hrefs = await chat.page
      .locator(`[data-turn-id="${turn.id}"] .reply li a`)
      .evaluateAll((elements): Array<string | null> =>
        elements.map((element) =>
          (element as unknown as { getAttribute(name: string): string | null }).getAttribute('href'),
        ),
      );
    assert.deepStrictEqual(hrefs, expected);
  });
});
