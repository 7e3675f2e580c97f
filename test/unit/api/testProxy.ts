/**
 * A loopback HTTP proxy for the client tests (CONNECT tunnels and plain forwarding). The client
 * never sends a loopback target through a proxy, so tests name the loopback simulator through
 * it as `*.test` (see `throughProxy`), which this proxy alone resolves to 127.0.0.1.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A minimal loopback proxy. undici's ProxyAgent tunnels with CONNECT even for http:// targets;
 * plain forwarding (absolute-URI requests) is supported as well, in case that changes.
 */
export class TestProxy {
  readonly tunnels: string[] = [];
  readonly forwarded: string[] = [];
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      this.forwarded.push(request.url ?? '');
      const target = new URL(request.url ?? '');
      if (target.hostname.endsWith('.test')) target.hostname = '127.0.0.1';
      const upstream = httpRequest(target, { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    });
    server.on('connect', (request, clientSocket: Socket, head: Buffer) => {
      this.tunnels.push(request.url ?? '');
      const [host, port] = (request.url ?? '').split(':');
      const upstream = connect(Number(port), host.endsWith('.test') ? '127.0.0.1' : host, () => {
        clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(clientSocket);
        clientSocket.pipe(upstream);
      });
      this.sockets.add(clientSocket).add(upstream);
      upstream.on('error', () => clientSocket.destroy());
      clientSocket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  get uses(): number {
    return this.tunnels.length + this.forwarded.length;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** The host a loopback URL is named by through TestProxy: a name only the proxy resolves. */
export const PROXIED_HOST = 'gateway.test';

/** `url` (on 127.0.0.1) as the client must name it to reach it through TestProxy. */
export function throughProxy(url: string): string {
  const parsed = new URL(url);
  parsed.hostname = PROXIED_HOST;
  return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}
