import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  agentSystemPrompt,
  NO_COMMANDS_NOTE,
  NO_COMMANDS_PROMPT,
} from '../../../../src/core/agent/agentRequest';
import { regexMayBacktrack, RISK_LINE_CHARS } from '../../../../src/core/agent/regexRisk';
import { parseAgentToolsState } from '../../../../src/core/protocol/agentProtocol';

describe('the agent where no command can run (VS Code for the Web)', () => {
  it('says so in the system prompt, and only there', () => {
    const web = agentSystemPrompt('Be terse.', ['app'], { commands: false });
    assert.ok(web.includes(NO_COMMANDS_PROMPT));
    assert.match(web, /remote window/);
    assert.doesNotMatch(web, /Run commands only when/);
    assert.ok(web.endsWith('Be terse.'));
    const desktop = agentSystemPrompt('Be terse.', ['app']);
    assert.ok(!desktop.includes(NO_COMMANDS_PROMPT));
    assert.match(desktop, /Run commands only when they are needed/);
    assert.equal(agentSystemPrompt('x', ['app'], { commands: true }), desktop.replace('Be terse.', 'x'));
  });

  it('carries the tool picker’s platform note, bounded, and drops a wrong one', () => {
    const base = { available: true, off: false, restricted: false, sources: [] };
    assert.equal(
      parseAgentToolsState({ ...base, platformNote: NO_COMMANDS_NOTE })?.platformNote,
      NO_COMMANDS_NOTE,
    );
    assert.equal(
      parseAgentToolsState({ ...base, platformNote: 'x'.repeat(9000) })?.platformNote?.length,
      2000,
    );
    assert.equal(parseAgentToolsState({ ...base, platformNote: 42 })?.platformNote, undefined);
    assert.equal(parseAgentToolsState({ ...base, platformNote: '' })?.platformNote, undefined);
    assert.equal(parseAgentToolsState(base)?.platformNote, undefined);
    fc.assert(
      fc.property(fc.anything(), (note) => {
        const state = parseAgentToolsState({ ...base, platformNote: note });
        assert.ok(
          state === undefined || state.platformNote === undefined || typeof state.platformNote === 'string',
        );
      }),
    );
  });
});

describe('regexMayBacktrack: patterns not run where a search cannot be stopped mid-line', () => {
  const risky = [
    '(a+)+$',
    '(a*)*b',
    '(a|a)*$',
    '(a|ab)+c',
    '(\\w+\\s?)*$',
    '((ab)+)+x',
    '(?:x+y?)+z',
    '(a+){2,}',
    '(.*,){11}P',
    '(a)\\1',
    '(?<q>a)\\k<q>',
    'a*a*a*a*b',
    '(x+x+)+y',
    // Three unbounded repeats: 32 s on one line of 500 spaces.
    '\\s*\\s*\\s*x',
    '.*a.*b.*c',
    '[ ]{1,}[ ]{1,} {1,}x',
    // Wide bounded repeats, and many optional ones, multiply as well.
    '\\s{0,499}\\s{0,499}\\s{0,499}x',
    '\\s{0,16}'.repeat(8) + 'x',
    '\\s?'.repeat(20) + 'x',
  ];
  const safe = [
    'needle',
    'foo|bar',
    '^import .* from',
    '\\d+\\.\\d+',
    '\\bTODO\\b:?\\s*(.*)$',
    '(foo|bar)',
    '(ab)+',
    'function\\s+\\w+\\(',
    '[(+*]+',
    'a{2,3}',
    '(a+)?b',
    '\\(a+\\)+',
  ];
  for (const pattern of risky) it(`refuses ${pattern}`, () => assert.equal(regexMayBacktrack(pattern), true));
  for (const pattern of safe) it(`runs ${pattern}`, () => assert.equal(regexMayBacktrack(pattern), false));

  it('lets through only what runs in a moment on the worst line of the length it judges', () => {
    // The costliest shapes still let through, against the lines that make them backtrack most.
    const edge = [
      '\\s*\\s*x',
      '\\s?\\s*\\s*x',
      '\\s{0,199}\\s{0,199}x',
      '\\s{0,16}\\s{0,16}\\s{0,16}x',
      '\\s?'.repeat(12) + 'x',
      '\\bTODO\\b:?\\s*(.*)$',
    ];
    const lines = [' '.repeat(RISK_LINE_CHARS), 'a'.repeat(RISK_LINE_CHARS)];
    for (const pattern of [...safe, ...edge]) {
      assert.equal(regexMayBacktrack(pattern), false, pattern);
      const re = new RegExp(pattern, 'iu');
      const started = Date.now();
      for (const line of lines) re.test(line);
      // About 100 ms at most here; the margin is for a loaded machine.
      assert.ok(Date.now() - started < 2000, `${pattern} took ${Date.now() - started} ms`);
    }
  });

  it('judges any text without throwing, in time linear in its length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (source) => {
        assert.equal(typeof regexMayBacktrack(source), 'boolean');
      }),
    );
    const long = '(a'.repeat(50_000) + 'b)'.repeat(50_000);
    const started = Date.now();
    regexMayBacktrack(long);
    assert.ok(Date.now() - started < 2000);
  });
});
