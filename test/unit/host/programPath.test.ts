/**
 * Programs named without a path run from PATH outside the workspace, never from the workspace
 * (issue 43, item 1). Windows is simulated: its platform, PATH and PATHEXT, and a file system
 * that holds a repository's `npx.cmd` at its root and the real one under Program Files.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpConfig, resolveMcpServer } from '../../../src/core/agent/mcpConfig';
import { mcpConsentKey, mcpDetail, mcpLaunchOf, mcpProgram } from '../../../src/host/agent/mcp/mcpProgram';
import { childPath, hostProgramSearch, pathCandidates, resolveProgram } from '../../../src/host/programPath';
import type { ProgramFs, ProgramSearch } from '../../../src/host/programPath';

const REPO = 'C:\\Users\\dev\\repo';
const NODEJS = 'C:\\Program Files\\nodejs';

/** A Windows file system of the given files (case-insensitive), with the given links. */
function windowsFs(files: string[], links: Record<string, string> = {}): ProgramFs {
  const has = new Set(files.map((f) => f.toLowerCase()));
  return {
    isProgram: (file) => Promise.resolve(has.has(file.toLowerCase())),
    realPath: (file) => {
      for (const [link, target] of Object.entries(links))
        if (file.toLowerCase().startsWith(link.toLowerCase()))
          return Promise.resolve(target + file.slice(link.length));
      return Promise.resolve(file);
    },
  };
}

function windows(pathValue: string, files: string[], extra: Partial<ProgramSearch> = {}): ProgramSearch {
  return {
    platform: 'win32',
    // Windows spells it `Path`; PATHEXT as a default installation has it.
    env: { Path: pathValue, PATHEXT: '.COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC' },
    workspaceFolders: [REPO],
    fs: windowsFs(files),
    ...extra,
  };
}

/** The repository's `.vscode/mcp.json` of the review: a bare `npx`, the server as its argument. */
function workspaceServer(command = 'npx') {
  const parsed = parseMcpConfig(
    { servers: { files: { command, args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } },
    'workspace',
  );
  return resolveMcpServer(parsed.servers[0], { workspaceFolder: REPO, env: {} });
}

describe('programPath: a bare name runs from PATH outside the workspace', () => {
  const files = [`${REPO}\\npx.cmd`, `${REPO}\\node_modules\\.bin\\npx.cmd`, `${NODEJS}\\npx.cmd`];

  it('a workspace npx.cmd is never what runs: not from the working folder, a PATH entry in the workspace, ".", "" or a relative entry', async () => {
    for (const pathValue of [
      `${NODEJS}`,
      `${REPO};${NODEJS}`,
      `.;${NODEJS}`,
      `;${NODEJS}`,
      `node_modules\\.bin;${NODEJS}`,
      `${REPO}\\node_modules\\.bin;${NODEJS}`,
      `c:\\users\\DEV\\Repo\\node_modules\\.bin;${NODEJS}`,
      `"${REPO}";"${NODEJS}"`,
      `\\Users\\dev\\repo;${NODEJS}`,
    ]) {
      const found = await resolveProgram('npx', windows(pathValue, files), REPO);
      assert.deepEqual(found, { ok: true, program: `${NODEJS}\\npx.cmd` }, pathValue);
    }
  });

  it('refuses, saying why, when the only npx is the workspace’s', async () => {
    const found = await resolveProgram('npx', windows(`.;${REPO}`, files), REPO);
    assert.equal(found.ok, false);
    assert.match(found.ok ? '' : found.reason, /only inside the workspace|not found on PATH/);
    assert.match(found.ok ? '' : found.reason, /PATH folder outside the workspace/);
  });

  it('a PATH folder that is a link into the workspace is the workspace’s', async () => {
    const linked = windows(`C:\\tools;${NODEJS}`, [...files, 'C:\\tools\\npx.cmd'], {
      fs: windowsFs([...files, 'C:\\tools\\npx.cmd'], { 'C:\\tools': `${REPO}\\bin` }),
    });
    assert.deepEqual(await resolveProgram('npx', linked, REPO), { ok: true, program: `${NODEJS}\\npx.cmd` });
    const only = windows('C:\\tools', ['C:\\tools\\npx.cmd'], {
      fs: windowsFs(['C:\\tools\\npx.cmd'], { 'C:\\tools': `${REPO}\\bin` }),
    });
    const refused = await resolveProgram('npx', only, REPO);
    assert.match(refused.ok ? '' : refused.reason, /only inside the workspace/);
  });

  it('tries PATHEXT in its order in each folder, folder by folder, and takes a name that has one as it is', async () => {
    assert.deepEqual(pathCandidates('npx', windows(`${NODEJS};C:\\bin`, [])).slice(0, 5), [
      `${NODEJS}\\npx.com`,
      `${NODEJS}\\npx.exe`,
      `${NODEJS}\\npx.bat`,
      `${NODEJS}\\npx.cmd`,
      `${NODEJS}\\npx.vbs`,
    ]);
    assert.deepEqual(pathCandidates('npx.cmd', windows(`${NODEJS};C:\\bin`, [])), [
      `${NODEJS}\\npx.cmd`,
      'C:\\bin\\npx.cmd',
    ]);
    const exe = windows(`${NODEJS}`, [`${NODEJS}\\node.exe`, `${NODEJS}\\node.cmd`]);
    assert.deepEqual(await resolveProgram('node', exe), { ok: true, program: `${NODEJS}\\node.exe` });
    const noPathext = { ...windows(NODEJS, [`${NODEJS}\\npx.cmd`]), env: { PATH: NODEJS } };
    assert.deepEqual(await resolveProgram('npx', noPathext), { ok: true, program: `${NODEJS}\\npx.cmd` });
  });

  it('a command that names a path is that file (resolved against the working folder), shown as such', async () => {
    const search = windows(NODEJS, files);
    assert.deepEqual(await resolveProgram('.\\npx', search, REPO), { ok: true, program: `${REPO}\\npx.cmd` });
    assert.deepEqual(await resolveProgram(`${NODEJS}\\npx.cmd`, search), {
      ok: true,
      program: `${NODEJS}\\npx.cmd`,
    });
    const missing = await resolveProgram('C:\\nowhere\\server.exe', search);
    assert.match(missing.ok ? '' : missing.reason, /does not exist/);
  });

  it('the child’s PATH leaves out the workspace, "." and relative entries', () => {
    assert.equal(
      childPath(windows(`.;${REPO}\\bin;;bin;${NODEJS};C:\\Windows`, [])),
      `${NODEJS};C:\\Windows`,
    );
    assert.equal(
      childPath({ platform: 'linux', env: { PATH: '/w/bin:.::/usr/bin:bin' }, workspaceFolders: ['/w'] }),
      '/usr/bin',
    );
  });

  it('on this machine: a workspace program first on PATH is passed over for the real one', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'program-path-'));
    try {
      const workspace = path.join(root, 'repo');
      const bin = path.join(root, 'bin');
      for (const dir of [workspace, bin]) {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'npx'), '#!/bin/sh\n', { mode: 0o755 });
      }
      // A folder outside the workspace that is a link into it counts as the workspace.
      fs.symlinkSync(workspace, path.join(root, 'alias'));
      const search = {
        ...hostProgramSearch([workspace]),
        platform: 'linux' as const,
        env: { PATH: [workspace, '.', '', path.join(root, 'alias'), bin].join(':') },
      };
      assert.deepEqual(await resolveProgram('npx', search, workspace), {
        ok: true,
        program: path.join(bin, 'npx'),
      });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('MCP servers run by absolute path, and the consent names it', () => {
  const files = [`${REPO}\\npx.cmd`, `${NODEJS}\\npx.cmd`];

  it('a workspace server named `npx` runs Program Files’ npx.cmd, never the repository’s', async () => {
    const server = workspaceServer();
    const search = windows(`.;${REPO};${NODEJS}`, files);
    const program = await mcpProgram(server, REPO, search);
    assert.deepEqual(program, { ok: true, program: `${NODEJS}\\npx.cmd` });
    assert.equal(server.launch.type, 'stdio');
    if (server.launch.type !== 'stdio' || !program?.ok) return;
    const launch = mcpLaunchOf({ ...server.launch, cwd: REPO }, program.program, search);
    assert.equal(launch.command, `${NODEJS}\\npx.cmd`);
    assert.notEqual(launch.command.toLowerCase(), `${REPO}\\npx.cmd`.toLowerCase());
    // What npx.cmd itself runs by name (node) is not looked for in the repository either.
    assert.equal(launch.env.NoDefaultCurrentDirectoryInExePath, '1');
    assert.equal(launch.env.PATH, NODEJS);
  });

  it('the consent names the resolved program, and a different program asks again', async () => {
    const server = workspaceServer();
    const program = await mcpProgram(server, REPO, windows(`${REPO};${NODEJS}`, files));
    const detail = mcpDetail(server, program);
    assert.equal(detail, `'${NODEJS}\\npx.cmd' -y @modelcontextprotocol/server-filesystem .`);
    assert.ok(!detail.startsWith('npx '), detail);
    const elsewhere = await mcpProgram(server, REPO, windows('C:\\other', ['C:\\other\\npx.cmd']));
    assert.notEqual(mcpConsentKey('identity', program), mcpConsentKey('identity', elsewhere));
  });

  it('the consent says a workspace server starts in the workspace folder, where npx takes its packages first', async () => {
    const server = workspaceServer();
    const program = await mcpProgram(server, REPO, windows(`${REPO};${NODEJS}`, files));
    const detail = mcpDetail(server, program, REPO);
    assert.ok(detail.startsWith(`cd '${REPO}' && '${NODEJS}\\npx.cmd' -y`), detail);
    assert.match(detail, /node_modules and \.npmrc/);
  });

  it('refuses to start, saying why, when npx is found only in the workspace', async () => {
    const server = workspaceServer();
    const program = await mcpProgram(server, REPO, windows(`.;${REPO}`, files));
    assert.equal(program?.ok, false);
    assert.match(
      program?.ok === false ? program.reason : '',
      /^It cannot start: "npx" was found only inside the workspace/,
    );
  });

  it('a configuration cannot undo the Windows lookup rule, and its own PATH is kept (the consent shows it)', () => {
    const search = windows(NODEJS, []);
    const launch = mcpLaunchOf(
      {
        type: 'stdio',
        command: 'npx',
        args: [],
        env: { PATH: 'C:\\mine', nodefaultcurrentdirectoryinexepath: '' },
      },
      `${NODEJS}\\npx.cmd`,
      search,
    );
    assert.deepEqual(launch.env, { PATH: 'C:\\mine', NoDefaultCurrentDirectoryInExePath: '1' });
  });

  it('a server reached by URL has no program', async () => {
    const parsed = parseMcpConfig({ servers: { web: { url: 'https://example.com/mcp' } } }, 'workspace');
    const server = resolveMcpServer(parsed.servers[0], { env: {} });
    assert.equal(await mcpProgram(server, undefined, windows(NODEJS, [])), undefined);
    assert.equal(mcpDetail(server, undefined), 'HTTP https://example.com/mcp');
  });
});
