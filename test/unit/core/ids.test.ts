/**
 * The ids in src/core/ids.ts are the contract with package.json: every command, view and setting
 * the code uses is contributed, and everything contributed is known to the code. The code names
 * ids only through these constants, so the check covers every id it executes or reads.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { Command, ContextKey, Setting, Tool, View } from '../../../src/core/ids';

const root = path.resolve(__dirname, '../../../..');
const manifest = readFileSync(path.join(root, 'package.json'), 'utf8');
const pkg = JSON.parse(manifest) as {
  contributes: {
    commands: Array<{ command: string }>;
    views: Record<string, Array<{ id: string }>>;
    viewsContainers: { activitybar: Array<{ id: string }> };
    configuration: { properties: Record<string, unknown> };
    menus: Record<string, Array<{ command: string; when?: string }>>;
    keybindings: Array<{ command: string }>;
    languageModelTools: Array<{ name: string }>;
  };
};

function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Keys that appear twice in one object of a JSON text (JSON.parse silently keeps the last). */
function duplicateKeys(text: string): string[] {
  const objects: Array<Set<string> | undefined> = [];
  const found: string[] = [];
  const token = /"(?:[^"\\]|\\.)*"|[{}[\]]/g;
  for (let match = token.exec(text); match; match = token.exec(text)) {
    const [value] = match;
    if (value === '{') objects.push(new Set());
    else if (value === '[') objects.push(undefined);
    else if (value === '}' || value === ']') objects.pop();
    else if (/^\s*:/.test(text.slice(token.lastIndex, token.lastIndex + 8))) {
      const keys = objects.at(-1);
      const key = JSON.parse(value) as string;
      if (keys?.has(key)) found.push(key);
      keys?.add(key);
    }
  }
  return found;
}

describe('ids and package.json', () => {
  it('package.json has no key twice in one object (the second would silently replace the first)', () => {
    assert.deepEqual(duplicateKeys('{"a": {"b": 1, "c": [{"b": 2}], "b": 3}}'), ['b']);
    assert.deepEqual(duplicateKeys(manifest), []);
  });

  it('every command constant is contributed, and every contributed command has a constant', () => {
    assert.deepEqual(sorted(Object.values(Command)), sorted(pkg.contributes.commands.map((c) => c.command)));
  });

  it('menus and keybindings name only contributed commands', () => {
    const known = new Set<string>(Object.values(Command));
    const named = [...Object.values(pkg.contributes.menus).flat(), ...pkg.contributes.keybindings].map(
      (m) => m.command,
    );
    assert.deepEqual(
      named.filter((c) => !known.has(c)),
      [],
    );
  });

  it('every view constant is contributed, and the reverse', () => {
    const contributed = [
      ...pkg.contributes.viewsContainers.activitybar.map((c) => c.id),
      ...Object.values(pkg.contributes.views)
        .flat()
        .map((v) => v.id),
    ];
    assert.deepEqual(sorted(Object.values(View)), sorted(contributed));
  });

  it('every setting constant is contributed, and the reverse', () => {
    assert.deepEqual(
      sorted(Object.values(Setting)),
      sorted(Object.keys(pkg.contributes.configuration.properties)),
    );
  });

  it('every tool constant is contributed to languageModelTools, and the reverse', () => {
    assert.deepEqual(
      sorted(Object.values(Tool)),
      sorted(pkg.contributes.languageModelTools.map((t) => t.name)),
    );
  });

  it('the context keys that package.json tests are the ones the code sets', () => {
    const text = JSON.stringify(pkg.contributes);
    const used = new Set(text.match(/gateway\.has\w+/g) ?? []);
    assert.deepEqual(sorted(used), sorted(Object.values(ContextKey)));
  });

  it('the code writes no gateway id as a string literal outside src/core/ids.ts', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(root, 'src'))) {
      if (file.endsWith(path.join('core', 'ids.ts'))) continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/(['"`])gateway\.[A-Za-z.]+\1/.test(line) && !/^\s*(\/\/|\/?\*)/.test(line)) {
          offenders.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
        }
      });
    }
    assert.deepEqual(offenders, []);
  });
});
