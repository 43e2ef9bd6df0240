// How the Docker deployment is reached: labbot's port on this machine only, the TLS proxy (Caddy,
// compose profile `tls`) as the one way in, forwarding only the paths that must be public (and
// /admin from the lab's networks), with forwarding headers labbot believes from that proxy alone.
// No Docker engine runs here: docker-compose.yml is parsed; the shipped Caddyfile runs in a real
// Caddy (Debian's, installed by scripts/test-deps.sh) with its own local CA instead of Let's
// Encrypt, in front of a recording upstream and of a real `labbot serve`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIPv4 } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../../src/store/chroma-server.ts';
import { startAdminServer, TOKEN, type AdminServer } from '../admin-server.ts';
import { waitFor } from '../helpers/wait.ts';

// biome-ignore lint/suspicious/noExplicitAny: docker-compose.yml read as plain YAML, walked by the assertions
type Service = Record<string, any>;
const compose = parseYaml(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  networks?: Record<string, any>;
};
const svc = (name: string): Service => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service "${name}"`);
  return s;
};

/** A compose `ports` entry (short or long syntax) -> the host address it binds ('' = all) and ports. */
function published(entry: unknown): { hostIp: string; host: string; container: string } {
  if (typeof entry === 'object' && entry) {
    const e = entry as { host_ip?: string; published?: string | number; target: number };
    return { hostIp: e.host_ip ?? '', host: String(e.published ?? ''), container: String(e.target) };
  }
  const parts = String(entry)
    .replace(/\/(tcp|udp)$/, '')
    .split(':');
  if (parts.length === 3) return { hostIp: parts[0], host: parts[1], container: parts[2] };
  if (parts.length === 2) return { hostIp: '', host: parts[0], container: parts[1] };
  return { hostIp: '', host: '', container: parts[0] };
}

const profiles = (s: Service): string[] => s.profiles ?? [];
const networksOf = (s: Service): string[] => (Array.isArray(s.networks) ? s.networks : Object.keys(s.networks ?? { default: {} }));
const trustProxy = () => String(svc('labbot').environment.LABBOT_TRUST_PROXY ?? '');

describe('docker-compose.yml: what is published', () => {
  it("publishes labbot's port on 127.0.0.1 only, and nothing of a service that runs without a profile on any other address", () => {
    const ports = ((svc('labbot').ports ?? []) as unknown[]).map(published);
    expect(ports.map((p) => p.container)).toContain('3000');
    for (const p of ports) expect(p.hostIp, `labbot publishes ${p.host}:${p.container} on all interfaces`).toBe('127.0.0.1');
    for (const [name, s] of Object.entries(compose.services)) {
      if (profiles(s).length) continue;
      for (const p of ((s.ports ?? []) as unknown[]).map(published))
        expect(['127.0.0.1', '::1', '[::1]'], `${name} publishes ${p.host} on ${p.hostIp || 'every interface'}`).toContain(p.hostIp);
    }
  });

  it('the only service reachable from other machines is the TLS proxy, behind the `tls` profile, on 80 and 443', () => {
    const open = Object.entries(compose.services).filter(([, s]) =>
      (s.ports ?? []).map(published).some((p: { hostIp: string }) => !['127.0.0.1', '::1', '[::1]'].includes(p.hostIp)),
    );
    expect(open.map(([n]) => n)).toEqual(['caddy']);
    const caddy = svc('caddy');
    expect(profiles(caddy)).toEqual(['tls']);
    expect(caddy.image).toMatch(/^caddy:2(\.|$)/);
    expect(new Set((caddy.ports as unknown[]).map((p) => published(p).container))).toEqual(new Set(['80', '443']));
    expect(caddy.volumes).toEqual(
      expect.arrayContaining(['./Caddyfile:/etc/caddy/Caddyfile:ro', expect.stringMatching(/^[a-z][\w-]*:\/data$/)]),
    );
    expect(existsSync('Caddyfile')).toBe(true);
    // The site it certifies is labbot's public URL, interpolated from .env.
    expect(String(caddy.environment?.LABBOT_PUBLIC_URL)).toMatch(/^\$\{LABBOT_PUBLIC_URL/);
  });

  it("labbot believes X-Forwarded-* only from the proxy's fixed address, which Docker gives no other container", () => {
    const caddy = svc('caddy');
    const nets = Object.entries(caddy.networks ?? {}) as [string, { ipv4_address?: string }][];
    expect(nets.length).toBe(1);
    const [net, { ipv4_address: address }] = nets[0];
    expect(address && isIPv4(address)).toBe(true);
    expect(trustProxy()).toBe(address);
    const ipam = compose.networks?.[net]?.ipam?.config?.[0] as { subnet: string; ip_range: string };
    const inRange = (cidr: string) => {
      const [ip, bits] = cidr.split('/');
      const list = new BlockList();
      list.addSubnet(ip, Number(bits), 'ipv4');
      return list.check(address!, 'ipv4');
    };
    expect(inRange(ipam.subnet), `${address} is in ${net}'s subnet`).toBe(true);
    expect(inRange(ipam.ip_range), `${address} must be outside ip_range, or Docker may give it to another container`).toBe(false);
    expect(networksOf(svc('labbot'))).toEqual(expect.arrayContaining(['default', net]));
    // The internet-facing process shares no network with Redis and Chroma (no authentication on either).
    for (const name of ['redis', 'chroma', 'worker']) expect(networksOf(svc(name))).not.toContain(net);
    expect(networksOf(caddy)).not.toContain('default');
  });
});

// ---------------------------------------------------------------- the Caddyfile, run by Caddy

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An upstream that records what reaches it. */
async function recordingUpstream(): Promise<{ port: number; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('upstream');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, seen, close: () => new Promise((r) => server.close(() => r())) };
}

interface RunningCaddy {
  origin: string;
  port: number;
  ca: string;
  stop(): Promise<void>;
}

const children: ChildProcess[] = [];

/**
 * The shipped Caddyfile behind a wrapper that only changes what a test machine needs: Caddy's own
 * CA instead of ACME, no admin endpoint, free ports. The site is https://localhost:<port>.
 */
async function startCaddy(upstreamPort: number, env: Record<string, string> = {}): Promise<RunningCaddy> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-caddy-'));
  const [https, http] = [await freePort(), await freePort()];
  const wrapper = path.join(dir, 'Caddyfile');
  writeFileSync(
    wrapper,
    `{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\thttp_port ${http}\n\thttps_port ${https}\n}\n\nimport ${path.resolve('Caddyfile')}\n`,
  );
  const child = spawn('caddy', ['run', '--config', wrapper, '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      XDG_DATA_HOME: path.join(dir, 'data'),
      XDG_CONFIG_HOME: path.join(dir, 'config'),
      LABBOT_PUBLIC_URL: `https://localhost:${https}`,
      LABBOT_UPSTREAM: `127.0.0.1:${upstreamPort}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const ca = path.join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');
  const origin = `https://localhost:${https}`;
  const running: RunningCaddy = {
    origin,
    port: https,
    ca: '',
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`caddy exited (${child.exitCode}):\n${out}`);
      if (!existsSync(ca)) return false;
      running.ca = readFileSync(ca, 'utf8');
      return call(running, 'GET', '/nothing-here').then(
        () => true,
        () => false,
      );
    },
    30_000,
    `caddy serving https on ${https}`,
  );
  return running;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTPS request to the proxy, from 127.0.0.1, trusting only Caddy's local CA. */
function call(
  c: RunningCaddy,
  method: string,
  pathname: string,
  opts: { headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: c.port,
        servername: 'localhost',
        ca: c.ca,
        method,
        path: pathname,
        headers: { host: `localhost:${c.port}`, ...opts.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** `caddy` is on the PATH (scripts/test-deps.sh installs Debian's). */
function requireCaddy(): void {
  const which = (process.env.PATH ?? '').split(':').some((d) => existsSync(path.join(d, 'caddy')));
  if (!which) throw new Error('caddy is not installed: run scripts/test-deps.sh (apt-get install caddy)');
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('Caddyfile: the TLS proxy forwards only what must be reachable from outside', () => {
  let upstream: Awaited<ReturnType<typeof recordingUpstream>>;
  let caddy: RunningCaddy;
  beforeAll(async () => {
    requireCaddy();
    upstream = await recordingUpstream();
    caddy = await startCaddy(upstream.port);
  });
  afterAll(async () => {
    await caddy?.stop();
    await upstream?.close();
  });

  it('forwards /slack/events, /hooks/, /doc and /admin to labbot with the body and signature headers intact', async () => {
    const slackBody = 'token=x&command=%2Flabbot&text=where+is+the+rotor';
    const cases: [string, string, Record<string, string>, string | undefined][] = [
      [
        'POST',
        '/slack/events',
        { 'x-slack-signature': 'v0=abc', 'x-slack-request-timestamp': '1700000000', 'content-type': 'application/x-www-form-urlencoded' },
        slackBody,
      ],
      [
        'POST',
        '/hooks/wiki/lab',
        { 'x-hub-signature-256': 'sha256=def', 'x-github-delivery': 'd-1', 'content-type': 'application/json' },
        '{"ref":"refs/heads/main"}',
      ],
      ['GET', '/doc?d=abc&sig=xyz', {}, undefined],
      ['GET', '/admin', {}, undefined],
      ['GET', '/admin/queues/api/queues', {}, undefined],
    ];
    for (const [method, p, headers, body] of cases) {
      const before = upstream.seen.length;
      const res = await call(caddy, method, p, { headers, body });
      expect(res.status, `${method} ${p}`).toBe(200);
      expect(res.body).toBe('upstream');
      const got = upstream.seen[before];
      expect(got, `${method} ${p} did not reach labbot`).toBeDefined();
      expect(got.url).toBe(p);
      expect(got.body).toBe(body ?? '');
      for (const [k, v] of Object.entries(headers)) expect(got.headers[k]).toBe(v);
      // Browsers keep to HTTPS for this host from then on.
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d{7,}/);
    }
  });

  it('keeps /api/ask, /metrics, /readyz, /healthz and anything else on the machine (404 at the proxy)', async () => {
    const before = upstream.seen.length;
    for (const [method, p] of [
      ['POST', '/api/ask'],
      ['GET', '/metrics'],
      ['GET', '/readyz'],
      ['GET', '/healthz'],
      ['GET', '/'],
      ['GET', '/slack/events/../api/ask'],
      ['GET', '/administrator'],
      ['GET', '/docs'],
    ]) {
      const res = await call(
        caddy,
        method,
        p,
        method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{"question":"x"}' } : {},
      );
      expect(res.status, `${method} ${p}`).toBe(404);
    }
    expect(upstream.seen.slice(before).map((s) => s.url)).toEqual([]);
  });

  it("tells labbot the client's own address, https and the public host, and drops forwarding headers the client forged", async () => {
    const before = upstream.seen.length;
    await call(caddy, 'POST', '/slack/events', {
      headers: { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' },
      body: 'x',
    });
    const got = upstream.seen[before];
    expect(got.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(got.headers['x-forwarded-proto']).toBe('https');
    expect(got.headers['x-forwarded-host']).toBe(`localhost:${caddy.port}`);
    expect(got.headers.host).toBe(`localhost:${caddy.port}`);
  });
});

describe('Caddyfile: /admin only from the networks in LABBOT_ADMIN_NETS', () => {
  it('refuses /admin to a client outside them, while Slack and webhooks still get through', async () => {
    requireCaddy();
    const upstream = await recordingUpstream();
    // 192.0.2.0/24 is a documentation range: this test's client (127.0.0.1) is outside it.
    const caddy = await startCaddy(upstream.port, { LABBOT_ADMIN_NETS: '192.0.2.0/24' });
    try {
      expect((await call(caddy, 'GET', '/admin')).status).toBe(403);
      expect((await call(caddy, 'GET', '/admin/queues')).status).toBe(403);
      expect((await call(caddy, 'POST', '/slack/events', { body: 'x' })).status).toBe(200);
      expect(upstream.seen.map((s) => s.url)).toEqual(['/slack/events']);
    } finally {
      await caddy.stop();
      await upstream.close();
    }
  });
});

describe('labbot behind the proxy, trusting it as docker-compose.yml does', () => {
  let server: AdminServer;
  let caddy: RunningCaddy;
  beforeAll(async () => {
    requireCaddy();
    // compose trusts the proxy's address on the edge network; here the proxy connects from 127.0.0.1.
    expect(trustProxy()).not.toBe('');
    server = await startAdminServer({ env: { LABBOT_HOST: '127.0.0.1', LABBOT_TRUST_PROXY: '127.0.0.1', LABBOT_WORKER: 'off' } });
    caddy = await startCaddy(Number(new URL(server.url).port));
  });
  afterAll(async () => {
    await caddy?.stop();
    await server?.close();
  });

  it('signs an admin in through the proxy with a Secure cookie (labbot sees https), and the dashboard still needs the token', async () => {
    expect((await call(caddy, 'GET', '/admin/api/status')).status).toBe(401);
    const res = await call(caddy, 'POST', '/admin/login', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    const set = String(res.headers['set-cookie'] ?? '');
    expect(set).toMatch(/labbot_admin=/);
    expect(set).toMatch(/;\s*Secure/i);
    const cookie = set.split(';')[0];
    expect((await call(caddy, 'GET', '/admin/api/status', { headers: { cookie } })).status).toBe(200);
    // The same sign-in straight to labbot's port is plain http: no Secure flag.
    const direct = await fetch(`${server.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(direct.headers.get('set-cookie') ?? '').not.toMatch(/Secure/i);
  });
});

describe('docs/running-for-a-lab.md', () => {
  it('says, for every path the proxy forwards, who may reach it and what authenticates it', () => {
    const doc = readFileSync('docs/running-for-a-lab.md', 'utf8');
    const section = doc.slice(doc.indexOf('### What the proxy exposes'));
    expect(section.length).toBeGreaterThan(200);
    const caddyfile = readFileSync('Caddyfile', 'utf8');
    const forwarded = [...caddyfile.matchAll(/^\s*handle (\/[^\s{]*)/gm)].map((m) => m[1].replace(/\*$/, ''));
    expect(forwarded).toEqual(expect.arrayContaining(['/slack/events', '/hooks/', '/doc']));
    for (const p of [...forwarded, '/admin', '/api/ask', '/metrics']) {
      const row = section.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${p}`));
      expect(row, `a table row for ${p}`).toBeDefined();
    }
    expect(section).toMatch(/LABBOT_SIGNING_SECRET|SLACK_SIGNING_SECRET/);
    expect(section).toMatch(/LABBOT_ADMIN_TOKEN/);
    expect(section).toMatch(/LABBOT_LINK_SECRET/);
  });
});
