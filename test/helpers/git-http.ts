// A private git remote over HTTP, the way GitHub/GitLab serve one: git's own smart-HTTP server
// (`git http-backend`, run as CGI) behind Basic authentication. A request without the right
// Authorization header gets 401 with a Basic challenge, as the real hosts answer. Every request's
// URL and Authorization header are kept, so tests can check where a token travelled.
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface GitHttpRemote {
  /** The remote's URL, without credentials. */
  url: string;
  requests: { url: string; authorization: string | undefined; allowed: boolean }[];
  /** Replaces the one credential accepted (a token revoked and another issued). */
  accept(user: string, password: string): void;
  close(): Promise<void>;
}

// The real git binary: a test may put a wrapper named git first on PATH.
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** Serves the bare repository `bareRepo` at http://127.0.0.1:<port>/<its folder name>. */
export async function serveGitHttp(bareRepo: string, user: string, password: string): Promise<GitHttpRemote> {
  let expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const requests: GitHttpRemote['requests'] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const authorization = req.headers.authorization;
    const allowed = authorization === expected;
    requests.push({ url: req.url ?? '', authorization, allowed });
    if (!allowed) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="wiki"', 'content-type': 'text/plain' });
      res.end('Authentication required\n');
      return;
    }
    const cgi = spawn(REAL_GIT, ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: path.dirname(bareRepo),
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(u.pathname),
        QUERY_STRING: u.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: user,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    // CGI output: header lines, a blank line, then the body.
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const [k, v] = [line.slice(0, i).trim(), line.slice(i + 1).trim()];
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else headers[k] = v;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => {
      if (!headersDone) res.writeHead(500).end();
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${path.basename(bareRepo)}`,
    requests,
    accept(u, p) {
      expected = `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
