/**
 * The characters a command may not hold, over the corpus in
 * test/fixtures/hostile/control-characters: every C0 control but the line feed and the tab, DEL,
 * every C1 control, bidi controls, zero-width and other invisible characters, Unicode spaces
 * that are not a space, tag characters and variation selectors are refused, with where they are;
 * ordinary commands (Unicode text, emoji, tabs, several lines) pass unchanged.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findHiddenCharacter, visibleText } from '../../../../src/core/agent/hiddenText';
import { parseRunCommandArgs } from '../../../../src/core/agent/toolArgs';
import { ToolInputError } from '../../../../src/core/agent/types';

const root = path.resolve(__dirname, '..', '..', '..', '..', '..');
const corpus = JSON.parse(
  readFileSync(path.join(root, 'test', 'fixtures', 'hostile', 'control-characters', 'commands.json'), 'utf8'),
) as { refused: string[]; accepted: string[] };

const code = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

function refusal(args: unknown): string {
  try {
    parseRunCommandArgs(args);
  } catch (error) {
    assert.ok(error instanceof ToolInputError, String(error));
    return error.message;
  }
  assert.fail(`${JSON.stringify(args)} was not refused`);
}

describe('hidden characters in commands', () => {
  it('has a corpus of every C0 and C1 control, DEL and the invisible characters', () => {
    const codes = new Set(corpus.refused.map((char) => char.codePointAt(0)));
    for (let c = 0; c < 0xa0; c++)
      if ((c < 0x20 && c !== 0x0a && c !== 0x09) || c >= 0x7f)
        assert.ok(codes.has(c), code(String.fromCodePoint(c)));
    assert.ok(corpus.refused.length > 80);
  });

  for (const char of corpus.refused)
    it(`refuses ${code(char)} in a command and in its folder, saying where it is`, () => {
      // `echo safe<char>touch pwned`: ^U or ^W here made a real bash run `touch pwned`.
      const command = `echo safe${char}touch pwned`;
      const found = findHiddenCharacter(command);
      assert.deepEqual(found && { code: found.code, line: found.line, column: found.column }, {
        code: code(char),
        line: 1,
        column: 10,
      });
      assert.match(
        refusal({ command }),
        new RegExp(`^"command" holds an? .*\\(${code(char).replace('+', '\\+')}, at column 10\\)`),
      );
      assert.match(refusal({ command: `ls\necho x${char}` }), /at line 2, column 7\)/);
      assert.match(refusal({ command: 'ls', cwd: `src${char}x` }), /^"cwd" holds/);
    });

  for (const command of corpus.accepted)
    it(`runs ${JSON.stringify(command)} as it is written`, () => {
      assert.equal(findHiddenCharacter(command), undefined);
      assert.equal(parseRunCommandArgs({ command }).command, command);
    });

  it('refuses an unpaired surrogate, which would not be written as itself', () => {
    assert.equal(findHiddenCharacter('echo \ud800x')?.code, 'U+D800');
  });

  it('names the character in a way the model can act on', () => {
    assert.equal(
      refusal({ command: 'echo a\u0015b' }),
      '"command" holds a control character (U+0015, at column 7): the user could not see it in the confirmation, so nothing was run. Send the command as plain text; to give a program such a character, write it as an escape the program reads (e.g. printf \'\\033\').',
    );
    assert.match(refusal({ command: 'echo \u202e' }), /a bidi control \(U\+202E/);
    assert.match(refusal({ command: 'rm a\u00a0b' }), /a space that is not a plain space \(U\+00A0/);
    assert.match(refusal({ command: 'echo \u{e0041}' }), /a tag character \(U\+E0041/);
  });

  it('writes hidden characters, line feeds and tabs out where text must stay on one line', () => {
    assert.equal(visibleText('a\nb\tc\u202ed\u0000é日'), 'a⟨U+000A⟩b⟨U+0009⟩c⟨U+202E⟩d⟨U+0000⟩é日');
    assert.equal(visibleText('--require ./x.js'), '--require ./x.js');
  });
});
