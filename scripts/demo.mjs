// `npm run demo`: builds the extension, starts the bundled gateway simulator on a free loopback
// port, and opens VS Code with the extension pointed at it and a demo key stored, straight on
// the Gateway AI view with TRY-ME.md open (see demoWorkspace.mjs):
//   - VS Code desktop (extension development host) when `code` is on PATH;
//   - otherwise the browser workbench from the VS Code server, whose URL is printed.
// No account is needed. Ctrl+C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { prepareDemo } from './demoWorkspace.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const forceBrowser = process.argv.includes('--browser') || process.env.GATEWAY_DEMO_BROWSER === '1';
const DEMO_KEY = 'sk-demo-local-simulator';

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n"${command} ${args.join(' ')}" failed.`);
    process.exit(result.status ?? 1);
  }
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

console.log('Building the extension and the gateway simulator…');
run(process.execPath, ['esbuild.mjs']);
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json']);

const { startGatewaySimulator } = await import(path.join(root, 'out/test/simulator/index.js'));
const sim = await startGatewaySimulator({});
console.log(`Gateway simulator: ${sim.baseUrl} (any key works; the demo stores "${DEMO_KEY}")`);

// The workspace (settings, sample files, TRY-ME.md) and the launcher VS Code loads the extension
// from, so the window opens on the Gateway AI view with TRY-ME.md in the editor.
const { workspace, launcher, tryMe, userSettings } = prepareDemo({
  root,
  dir: path.join(root, '.test-work', 'demo'),
  baseUrl: sim.baseUrl,
});

const env = { ...process.env, GATEWAY_AI_DEMO_KEY: DEMO_KEY };
const children = [];
const stop = async () => {
  for (const child of children) child.kill();
  await sim.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

if (!forceBrowser && onPath('code')) {
  console.log('Opening VS Code with the extension development host…');
  // A profile of its own, with the simulator as the gateway in its user settings: your own VS Code
  // profile, its settings and its stored key are left alone.
  const userData = path.join(root, '.test-work', 'demo', 'desktop-user-data');
  mkdirSync(path.join(userData, 'User'), { recursive: true });
  writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  const code = spawn(
    'code',
    [
      '--new-window',
      `--user-data-dir=${userData}`,
      `--extensionDevelopmentPath=${launcher}`,
      workspace,
      tryMe,
    ],
    { stdio: 'inherit', env },
  );
  children.push(code);
  console.log('Press Ctrl+C here to stop the simulator when you are done.');
} else {
  const { startVsCodeServer } = await import(path.join(root, 'out/test/launch/vscodeServer.js'));
  const port = Number(process.env.PORT ?? 0) || undefined;
  const server = await startVsCodeServer({
    userDataDir: path.join(root, '.test-work', 'demo', 'user-data'),
    extensionsDir: path.join(root, '.test-work', 'demo', 'extensions'),
    settings: userSettings,
    env,
    port,
  });
  children.push({ kill: () => void server.stop() });
  const url = server.workbenchUrl({ folder: workspace, developmentPath: launcher });
  console.log(`\nVS Code ${server.version} is running in your browser at:\n\n  ${url}\n`);
  console.log(
    '(VS Code desktop was not found on PATH, so the browser workbench is used.) Press Ctrl+C to stop.',
  );
}
