/**
 * VS Code's `http.proxy`, as the shipped client meets it in a real extension host: requests go
 * through the host's `fetch`, which VS Code extends with its proxy settings. A loopback proxy
 * logs what it is asked (a CONNECT tunnel, or an absolute-form request) and refuses it; the
 * gateway is the simulator on 127.0.0.1.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';

/** A proxy that logs each request it is asked to carry, and carries none. */
async function startRefusingProxy(): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const server: Server = createServer((request, response) => {
    asked.push(`${request.method ?? ''} ${request.url ?? ''}`);
    response.writeHead(403).end();
  });
  server.on('connect', (request, socket) => {
    asked.push(`CONNECT ${request.url ?? ''}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("Proxies: VS Code's http.proxy, through the host's fetch", function () {
  let sim: GatewaySimulator;
  let proxy: Awaited<ReturnType<typeof startRefusingProxy>>;
  const http = () => vscode.workspace.getConfiguration('http');

  before(async () => {
    sim = await startGatewaySimulator();
    proxy = await startRefusingProxy();
    await setSetting('request.maxRetries', 0);
  });

  after(async () => {
    await http().update('proxy', undefined, vscode.ConfigurationTarget.Global);
    await setSetting('request.maxRetries', undefined);
    await setSetting('baseUrl', sim.baseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await Promise.all([sim.close(), proxy.close()]);
  });

  async function refreshCatalogAt(baseUrl: string): Promise<void> {
    await setSetting('baseUrl', baseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    const api = await gatewayApi();
    await api.catalog.catalog.refresh().catch(() => undefined);
  }

  it('with http.proxy set, a gateway elsewhere goes through it, and one at 127.0.0.1 or localhost never does', async () => {
    await http().update('proxy', proxy.url, vscode.ConfigurationTarget.Global);
    // A gateway off this computer: its request goes to the proxy (asked again until the setting
    // has reached the extension host, which proves it is in force for what follows).
    const elsewhere = 'gateway.proxy-test.invalid';
    await waitFor(async () => {
      await refreshCatalogAt(`https://${elsewhere}/api`);
      return proxy.asked.includes(`CONNECT ${elsewhere}:443`);
    }, 'the proxy to be asked for the gateway elsewhere');

    const askedBefore = proxy.asked.length;
    for (const baseUrl of [sim.baseUrl, sim.baseUrl.replace('//127.0.0.1:', '//localhost:')]) {
      assert.notEqual(baseUrl, `https://${elsewhere}/api`);
      const seen = sim.requests.length;
      await refreshCatalogAt(baseUrl);
      assert.ok(
        sim.requests.slice(seen).some((r) => r.method === 'GET' && r.path.endsWith('/models')),
        `${baseUrl}: the simulator was asked for the catalog`,
      );
    }
    // (What was still on its way to the gateway elsewhere may reach the proxy meanwhile.)
    const simPort = new URL(sim.baseUrl).port;
    assert.deepEqual(
      proxy.asked.slice(askedBefore).filter((line) => line.includes(`:${simPort}`)),
      [],
      'the proxy was asked nothing for the loopback gateway',
    );
  });
});
