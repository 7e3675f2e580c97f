/**
 * `@modelcontextprotocol/server-everything` (a real MCP server from npm that no one here wrote) in
 * its Streamable HTTP mode, on a free loopback port, started by the test.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { freePort } from '../launch/ports';

/** The server's script in the extension's `node_modules`. */
export function everythingScript(extensionRoot: string): string {
  return path.join(
    extensionRoot,
    'node_modules',
    '@modelcontextprotocol',
    'server-everything',
    'dist',
    'index.js',
  );
}

/** Starts it over HTTP; resolves once it listens. */
export async function startEverythingHttp(script: string): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [script, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port), ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += String(chunk);
      if (seen.includes(`listening on port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the HTTP server exited (${code}): ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => void child.kill() };
}
