/**
 * A batch file's arguments on Windows, against a model of how cmd.exe reads a line (quotes toggle;
 * outside them `^` escapes the next character and `&`, `|`, `<`, `>` are operators) and how a
 * program splits its command line into arguments (the C runtime's backslash and quote rules).
 * `cmd.exe /d /s /c "…"` reads the line once; a batch file such as npm's `npx.cmd` or any npm shim
 * (`"%NODE_EXE%" "%NPX_CLI_JS%" %*`) hands its arguments to the same reading again. What an
 * `mcp.json` writes as arguments must reach the program as those arguments, and never as an operator.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnCommand } from '../../../../src/host/agent/mcp/mcpStdio';

const CMD = 'C:\\Windows\\System32\\cmd.exe';

/** One reading of a line by cmd.exe: the text it passes on, and the operators it found. */
function cmdRead(line: string): { text: string; operators: string[] } {
  let text = '';
  const operators: string[] = [];
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '^' && i + 1 < line.length) {
      text += line[++i];
      continue;
    } else if (!quoted && '&|<>'.includes(c)) operators.push(c);
    text += c;
  }
  return { text, operators };
}

/** A program's arguments from its command line, by the C runtime's rules. */
function argv(line: string): string[] {
  const out: string[] = [];
  let arg = '';
  let inArg = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') {
      let n = 0;
      while (line[i + n] === '\\') n++;
      arg += '\\'.repeat(line[i + n] === '"' ? n >> 1 : n);
      // An odd run before a quote makes it a literal quote; an even run leaves it a quote, read next.
      if (line[i + n] === '"' && n % 2) {
        arg += '"';
        i += n;
      } else i += n - 1;
      inArg = true;
    } else if (c === '"') {
      if (quoted && line[i + 1] === '"') {
        arg += '"';
        i++;
      } else quoted = !quoted;
      inArg = true;
    } else if (!quoted && (c === ' ' || c === '\t')) {
      if (inArg) out.push(arg);
      arg = '';
      inArg = false;
    } else {
      arg += c;
      inArg = true;
    }
  }
  if (inArg) out.push(arg);
  return out;
}

/** What `program args` runs as: the operators each reading found, and the arguments node gets. */
function runAsBatch(program: string, args: string[]) {
  const spawned = spawnCommand(program, args, 'win32', CMD);
  assert.equal(spawned.command, CMD);
  const line = spawned.args[3];
  assert.ok(line.startsWith('"') && line.endsWith('"'));
  // `/s /c "…"`: the outer quotes go, the rest is read once.
  const first = cmdRead(line.slice(1, -1));
  assert.ok(first.text.startsWith(program), first.text);
  // The batch file's `"node.exe" "cli.js" %*` is read again, its arguments in it as they came.
  const second = cmdRead(`"C:\\n\\node.exe" "C:\\n\\cli.js"${first.text.slice(program.length)}`);
  return { operators: [...first.operators, ...second.operators], args: argv(second.text).slice(2) };
}

const argument = fc.string({
  unit: fc.constantFrom('a', ' ', '"', '\\', '&', '|', '<', '>', '^', '(', ')', ','),
  minLength: 1,
  maxLength: 12,
});

describe('MCP stdio on Windows: a batch file gets its arguments as written', () => {
  for (const program of [
    'C:\\Program Files\\nodejs\\npx.cmd',
    'C:\\Users\\u\\AppData\\Roaming\\npm\\server.cmd',
    'C:\\w\\node_modules\\.bin\\server.cmd',
    'C:\\tools\\start.bat',
  ])
    it(`${program}: no argument becomes an operator, and each arrives as written`, () => {
      // The shape of a repository's trap: a quote closes the batch file's quoting, then `&`.
      assert.deepEqual(runAsBatch(program, ['-y', 'pkg"&calc&"']), {
        operators: [],
        args: ['-y', 'pkg"&calc&"'],
      });
      fc.assert(
        fc.property(
          fc.array(
            argument.filter((a) => a.length > 0),
            { maxLength: 4 },
          ),
          (args) => {
            assert.deepEqual(runAsBatch(program, args), { operators: [], args });
          },
        ),
      );
    });
});
