import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { cleanCompletion, unitAt } from '../../../../src/core/inline/clean';

const fim = (prefix: string, text: string, suffix = ''): string | undefined =>
  cleanCompletion({ prefix, suffix, text, from: 'fim' });
const chat = (prefix: string, text: string, suffix = ''): string | undefined =>
  cleanCompletion({ prefix, suffix, text, from: 'chat' });

describe('inline completions: cleaning what the model wrote', () => {
  it('takes the code of a fenced chat answer and drops a line of prose', () => {
    assert.equal(chat('const x = ', 'Here is the completion:\n```ts\n42;\n```'), '42;');
    assert.equal(chat('const x = ', 'Sure! Here is the code\n41;'), '41;');
    assert.equal(chat('const x = ', '`40;`'), '40;');
  });

  it('removes a repeat of the text before the cursor', () => {
    assert.equal(chat('function add(a, b) {\n  return a', '  return a + b;'), ' + b;');
    assert.equal(chat('let total = ', 'let total = items.length;'), 'items.length;');
    assert.equal(chat('if (ready) {\n  start();\n  ', 'if (ready) {\n  start();\n  finish();'), 'finish();');
  });

  it('cuts at the end of the line when the cursor is inside a line', () => {
    assert.equal(fim('const name = ', '"Ada";\nconsole.log(name);'), '"Ada";');
  });

  it('cuts at the end of the block when the cursor is on an empty line after an opener', () => {
    const prefix = 'function f(x) {\n  ';
    assert.equal(unitAt(prefix).kind, 'block');
    assert.equal(
      fim(prefix, 'if (x) {\n    return 1;\n  }\n  return 0;\n}\n\nfunction g() {}'),
      'if (x) {\n    return 1;\n  }\n  return 0;\n}',
    );
    // The closer the file already has after the cursor is not suggested again.
    assert.equal(fim(prefix, 'return x * 2;\n}', '\n}\n'), 'return x * 2;');
    assert.equal(fim('def f(x):\n    ', 'y = x + 1\n    return y\n\nprint(f(1))'), 'y = x + 1\n    return y');
  });

  it('fits the indentation to the line', () => {
    // A chat model that writes the block from column 0 is moved to the cursor's indentation.
    assert.equal(
      chat('def f(x):\n    ', 'if x:\n    return 1\nreturn 0'),
      'if x:\n        return 1\n    return 0',
    );
    // A model that repeats the cursor's indentation loses it.
    assert.equal(chat('def f(x):\n    ', '    return x'), 'return x');
    // Mid-line after a space: no second space.
    assert.equal(fim('x = ', '  1'), '1');
  });

  it('trims the closing brackets and quotes the text after the cursor already has', () => {
    assert.equal(fim('print(', 'total)', ')'), 'total');
    assert.equal(fim('call(', 'f(1));', ');'), 'f(1)');
    assert.equal(fim('const s = "', 'hello"', '";'), 'hello');
    // Balanced within the suggestion: the suffix closes something else, nothing is trimmed.
    assert.equal(fim('print(', 'f(1)', ')'), 'f(1)');
  });

  it('drops blank suggestions and suggestions that only repeat the text after the cursor', () => {
    assert.equal(fim('x = ', '   \n\n'), undefined);
    assert.equal(fim('foo(', ')', ')'), undefined);
    assert.equal(fim('function f() {\n  ', '}', '\n}'), undefined);
    assert.equal(fim('a', '<|endoftext|>'), undefined);
  });

  it('never throws, and never suggests blank text or text that only repeats the suffix', () => {
    const code = fc.stringMatching(/^[a-z (){}[\]"'`;:,.=\n\t ]{0,60}$/);
    fc.assert(
      fc.property(
        fc.oneof(code, fc.string()),
        fc.oneof(code, fc.string()),
        fc.oneof(code, fc.string(), fc.constant('```\nx\n```')),
        fc.constantFrom<'fim' | 'chat'>('fim', 'chat'),
        (prefix, suffix, text, from) => {
          const result = cleanCompletion({ prefix, suffix, text, from });
          if (result === undefined) return;
          assert.notEqual(result.trim(), '');
          assert.ok(
            !suffix.trimStart().startsWith(result.trim()),
            `${JSON.stringify(result)} repeats the suffix`,
          );
        },
      ),
    );
  });
});
