/** SECURITY.md states what is not defended: the gaps a reader must know of stay named there. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const SECURITY = path.resolve(__dirname, '../../../../SECURITY.md');

/** The text of one `## ` section of SECURITY.md, up to the next. */
function section(heading: string): string {
  const text = readFileSync(SECURITY, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `SECURITY.md has a "${heading}" section`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

describe('SECURITY.md', () => {
  it("names that a dev container's environment (HTTPS_PROXY with NODE_EXTRA_CA_CERTS, NODE_OPTIONS) can decide where the key goes", () => {
    const gaps = section('Known gaps');
    const entry = gaps.split('\n- ').find((item) => item.includes("dev container's environment"));
    assert.ok(entry, 'a known gap about the dev container environment');
    for (const name of ['HTTPS_PROXY', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'devcontainer.json'])
      assert.ok(entry.includes(name), `it names ${name}`);
    assert.match(entry, /where the key goes/);
  });
});
