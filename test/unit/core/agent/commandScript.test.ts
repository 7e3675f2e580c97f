/**
 * How a command reaches a shell: the script's shell (the user's POSIX-style default, else
 * /bin/sh), the plain line typed into the terminal, and the script's exact text.
 */
import * as assert from 'node:assert/strict';
import {
  sameCommandLine,
  FALLBACK_SHELL,
  scriptCommandLine,
  scriptShell,
  scriptText,
} from '../../../../src/core/agent/commandScript';

describe('agent commands: the script file', () => {
  it("runs the script with the user's shell when it reads POSIX-style scripts, else /bin/sh", () => {
    assert.equal(scriptShell('/bin/bash'), '/bin/bash');
    assert.equal(scriptShell('/usr/bin/zsh'), '/usr/bin/zsh');
    assert.equal(scriptShell('/opt/homebrew/bin/fish'), '/opt/homebrew/bin/fish');
    for (const other of [
      '/usr/bin/pwsh',
      'bash',
      '',
      undefined,
      'C:\\Windows\\System32\\cmd.exe',
      '/usr/bin/nu',
    ])
      assert.equal(scriptShell(other), FALLBACK_SHELL, String(other));
  });

  it('types only plain paths into the terminal, quoted as a shell reads them back', () => {
    assert.equal(
      scriptCommandLine('/bin/bash', '/tmp/gateway-command-ab12/command.sh'),
      '/bin/bash /tmp/gateway-command-ab12/command.sh',
    );
    assert.equal(scriptCommandLine('/bin/sh', '/tmp/my dir/command.sh'), "/bin/sh '/tmp/my dir/command.sh'");
    // A path a line editor could act on, or one single quotes cannot carry plainly: no terminal.
    for (const file of [
      '/tmp/a\u0015b/c.sh',
      "/tmp/it's/c.sh",
      '/tmp/a\\b/c.sh',
      '/tmp/a\nb/c.sh',
      '/tmp/\u202e/c.sh',
    ])
      assert.equal(scriptCommandLine('/bin/sh', file), undefined, JSON.stringify(file));
  });

  it('writes the command exactly, ended by one line feed', () => {
    assert.equal(scriptText('echo "héllo 日本"'), 'echo "héllo 日本"\n');
    assert.equal(scriptText('ls\ncd src && make\n'), 'ls\ncd src && make\n');
    assert.equal(scriptText("cat <<'EOF'\n\tx\nEOF"), "cat <<'EOF'\n\tx\nEOF\n");
  });
});

describe('agent commands: the line a terminal reports', () => {
  it('is the line sent with a break or spaces inside it, and nothing else', () => {
    const sent = '/usr/bin/bash /tmp/gateway-command-vb5j1Y/command.sh';
    assert.equal(sameCommandLine(sent, sent), true);
    assert.equal(sameCommandLine('/usr/bin/bash /tmp/gateway-command-vb5j1Y/com\nmand.sh', sent), true);
    assert.equal(sameCommandLine(' /usr/bin/bash  /tmp/gateway-command-vb5j1Y/command.sh\r\n', sent), true);
    assert.equal(sameCommandLine('/usr/bin/bash /tmp/gateway-command-vb5j1Y/other.sh', sent), false);
    assert.equal(sameCommandLine('', sent), false);
  });
});
