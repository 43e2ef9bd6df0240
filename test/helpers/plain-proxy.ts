// A reverse proxy like nginx's plain `proxy_pass http://127.0.0.1:3000;`: it rewrites Host to the
// upstream's and adds no X-Forwarded-* / Forwarded / X-Real-IP header, so every request reaches
// labbot from 127.0.0.1 with a loopback Host, whoever sent it.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PlainProxy {
  url: string;
  close(): Promise<void>;
}

export async function startPlainProxy(upstream: string): Promise<PlainProxy> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    const out = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
