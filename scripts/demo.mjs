// `npm run demo`: builds the extension, starts the bundled gateway simulator on a free loopback
// port, and opens VS Code with the extension pointed at it and a demo key stored:
//   - VS Code desktop (extension development host) when `code` is on PATH;
//   - otherwise the browser workbench from the VS Code server, whose URL is printed.
// No account is needed. Ctrl+C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

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

const workspace = path.join(root, '.test-work', 'demo', 'workspace');
mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
writeFileSync(
  path.join(workspace, '.vscode', 'settings.json'),
  JSON.stringify(
    {
      'gateway.baseUrl': sim.baseUrl,
      'gateway.chat.model': 'openai/gpt-4o-mini',
      'gateway.media.model': 'openai/gpt-image-1',
    },
    null,
    2,
  ),
);
writeFileSync(
  path.join(workspace, 'sample.ts'),
  [
    '// Select this function and run "Gateway AI: Explain Selection" (Ctrl+Alt+E).',
    'export function debounce<T extends (...args: never[]) => void>(fn: T, ms: number): T {',
    '  let timer: ReturnType<typeof setTimeout> | undefined;',
    '  return ((...args: Parameters<T>) => {',
    '    clearTimeout(timer);',
    '    timer = setTimeout(() => fn(...args), ms);',
    '  }) as T;',
    '}',
    '',
  ].join('\n'),
);
writeFileSync(
  path.join(workspace, 'TRY-ME.md'),
  [
    '# Gateway AI demo',
    '',
    'This VS Code talks to a local gateway simulator, so nothing leaves the machine and nothing is billed.',
    '',
    '- Open **Gateway AI** in the activity bar and ask anything: the simulator echoes it back, streamed, with reasoning and usage.',
    '- Add `#sim:slow` to a prompt to have time to press **Stop**; `#sim:429`, `#sim:error-chunk` or `#sim:drop` show how errors look.',
    '- Select code in `sample.ts` and press **Ctrl+Alt+E** (Explain Selection).',
    '- Run **Gateway AI: Generate Media…**: the job goes queued → processing → completed in **Media Jobs**; add `#sim:fail` to see a failure.',
    "- Click the model in the status bar or the chat header: the picker shows each model's price per million tokens, context length and capabilities from the gateway's catalog. Type `vision` or `1M` to search; star a model to keep it on top. **Gateway AI: Refresh Model Catalog** fetches it again.",
    '- Attach context: select lines in `sample.ts` and run **Add Selection to Chat** (editor context menu), right-click a file in the Explorer for **Add File to Chat**, or run **Add Problems to Chat**. Each shows as a chip with its size and tokens, and the meter in the chat header moves.',
    '- Paste or drop a PNG/JPEG/WebP/GIF into the chat (or run **Add Image to Chat**) and ask about it: the simulator says how many images it received, their type and size. Choose `testvendor/text-only` and images are refused, as the catalog says that model takes none.',
    '- Add `#sim:status:402` to a prompt to see an out-of-credit message with the remaining credit; hover the status-bar model for the credit left.',
    '',
  ].join('\n'),
);

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
  const code = spawn(
    'code',
    ['--new-window', `--extensionDevelopmentPath=${root}`, workspace, path.join(workspace, 'TRY-ME.md')],
    {
      stdio: 'inherit',
      env,
    },
  );
  children.push(code);
  console.log('Press Ctrl+C here to stop the simulator when you are done.');
} else {
  const { startVsCodeServer } = await import(path.join(root, 'out/test/launch/vscodeServer.js'));
  const port = Number(process.env.PORT ?? 0) || undefined;
  const server = await startVsCodeServer({
    userDataDir: path.join(root, '.test-work', 'demo', 'user-data'),
    extensionsDir: path.join(root, '.test-work', 'demo', 'extensions'),
    env,
    port,
  });
  children.push({ kill: () => void server.stop() });
  const url = server.workbenchUrl({ folder: workspace, developmentPath: root });
  console.log(`\nVS Code ${server.version} is running in your browser at:\n\n  ${url}\n`);
  console.log(
    '(VS Code desktop was not found on PATH, so the browser workbench is used.) Press Ctrl+C to stop.',
  );
}
