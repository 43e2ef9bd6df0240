// The deployment files (Dockerfile, .dockerignore, docker-compose.yml, .env.example) checked
// against the code they deploy. No Docker engine runs here, so the files are parsed and checked,
// and every health check command is executed for real against local servers.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { dashboardStartCheck } from '../src/admin/auth.ts';
import { loadConfig } from '../src/config.ts';
import { SHUTDOWN_BUDGET } from '../src/shutdown.ts';

const read = (file: string) => readFileSync(path.resolve(file), 'utf8');

// ---------------------------------------------------------------- src/config.ts: what it reads

/** The keys of `envSchema = z.object({ ... })` in src/config.ts, from its source text. */
function configEnvKeys(): { keys: string[]; anyIndentKeys: string[] } {
  const src = read('src/config.ts');
  const start = src.indexOf('const envSchema = z.object({');
  if (start < 0) throw new Error('src/config.ts has no `const envSchema = z.object({`');
  const end = src.indexOf('\n});', start);
  if (end < 0) throw new Error('the envSchema block in src/config.ts does not end with `});`');
  const block = src.slice(start, end);
  const keys = [...block.matchAll(/^\s{2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
  const anyIndentKeys = [...block.matchAll(/^\s+([A-Z][A-Z0-9_]+)\s*:/gm)].map((m) => m[1]);
  return { keys, anyIndentKeys };
}

const CONFIG_KEYS = new Set(configEnvKeys().keys);

// ---------------------------------------------------------------- Chroma: the matching image

/**
 * chromadb-js-bindings-linux-x64-gnu version -> the Chroma release (git tag, and the
 * chromadb/chroma image tag) built from the same commit. From chroma-core/chroma's release
 * commits, which bump rust/js_bindings/npm/* and chromadb/__init__.py together:
 *   1.0.4 2570b471e "[RELEASE] CLI 1.1.7, Python 1.0.18, JS 3.0.13"  tag 1.0.18
 *   1.0.5 1993cd4a5 "[RELEASE] CLI 1.1.8, Python 1.0.19, JS 3.0.14"  tag 1.0.19
 *   1.0.6 482f4a7cd "[RELEASE] CLI 1.1.9, Python 1.0.21, JS 3.0.15"  tag 1.0.21
 *   1.0.7 0bd2f4699 "[RELEASE] Python 1.1.0, CLI 1.1.10, JS 3.0.16" tag 1.1.0
 * The release workflow (release-chromadb.yml -> _build_release_container.yml) pushes each such
 * tag as chromadb/chroma:<tag>. The server's /api/v2/version answers "1.0.0" (the API version)
 * on all of these, so it cannot tell them apart. Bump the override: add its row here.
 */
const BINDINGS_TO_CHROMA: Record<string, string> = { '1.0.4': '1.0.18', '1.0.5': '1.0.19', '1.0.6': '1.0.21', '1.0.7': '1.1.0' };
const BINDINGS = 'chromadb-js-bindings-linux-x64-gnu';

// ---------------------------------------------------------------- parsers

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile -> instructions (continuations joined, comments dropped), split into stages. */
function parseDockerfile(text: string): Instruction[][] {
  const lines = text.split('\n').filter((l) => !/^\s*#/.test(l));
  const joined: string[] = [];
  let cur = '';
  for (const line of lines) {
    if (/\\\s*$/.test(line)) cur += line.replace(/\\\s*$/, ' ');
    else {
      cur += line;
      if (cur.trim()) joined.push(cur.trim());
      cur = '';
    }
  }
  const stages: Instruction[][] = [];
  for (const l of joined) {
    const m = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(l);
    if (!m) throw new Error(`unparseable Dockerfile line: ${l}`);
    const ins = { op: m[1].toUpperCase(), args: m[2].trim() };
    if (ins.op === 'FROM') stages.push([]);
    if (stages.length === 0) throw new Error(`${ins.op} before the first FROM`);
    stages[stages.length - 1].push(ins);
  }
  return stages;
}

/** `COPY [--flags] src... dest` -> { from, sources, dest }. */
function parseCopy(args: string): { from: string | undefined; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
  }
  const dest = words.pop()!;
  return { from, sources: words, dest };
}

/** `KEY=value KEY2=value2` (the ENV form used here) -> a map. */
function parseEnvInstruction(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) out[m[1]] = m[2].replace(/^"|"$/g, '');
  return out;
}

interface EnvLine {
  key: string;
  value: string;
  active: boolean;
  line: number;
}

/** .env.example: `KEY=value` lines, and `# KEY=` lines (named but left commented out). */
function parseEnvExample(text: string): { vars: EnvLine[]; lines: string[] } {
  const lines = text.split('\n');
  const vars: EnvLine[] = [];
  lines.forEach((l, i) => {
    const active = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l);
    const commented = /^#\s?([A-Z][A-Z0-9_]*)=(.*)$/.exec(l);
    const m = active ?? commented;
    if (m) vars.push({ key: m[1], value: m[2], active: Boolean(active), line: i });
  });
  return { vars, lines };
}

/** A small .dockerignore matcher: patterns in order, `!` re-includes, a match on a parent dir counts. */
function dockerIgnored(patterns: string[], file: string): boolean {
  const toRegex = (p: string) =>
    new RegExp(
      `^${p
        .replace(/^\/+|\/+$/g, '')
        .split('**')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*')}$`,
    );
  const parts = path.normalize(file).replace(/^\.\//, '').split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const re = toRegex(negated ? raw.slice(1) : raw);
    if (candidates.some((c) => re.test(c))) ignored = !negated;
  }
  return ignored;
}

function seconds(duration: string | number): number {
  if (typeof duration === 'number') return duration;
  let total = 0;
  for (const m of duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/g)) {
    total += Number(m[1]) * { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 }[m[2] as 'h']!;
  }
  return total;
}

function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** A stand-in for `labbot serve`: answers /readyz with a settable status and records request paths. */
async function fakeReadyz(): Promise<{ port: number; paths: string[]; setStatus(s: number): void; close(): Promise<void> }> {
  let status = 200;
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(req.url === '/readyz' ? status : 404, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    paths,
    setStatus: (s) => (status = s),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Runs a `node -e <script>` health check (exec form) with the given env; returns the exit code. */
async function runNodeCheck(argv: string[], env: Record<string, string>): Promise<number | null> {
  expect(argv[0], `health check should run node, got ${JSON.stringify(argv)}`).toBe('node');
  return (await run(process.execPath, argv.slice(1), env)).code;
}

// ---------------------------------------------------------------- the files

// biome-ignore lint/suspicious/noExplicitAny: docker-compose.yml read as plain YAML, walked by the assertions
type Service = Record<string, any>;
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };
let compose: Compose;
/** The same file read as YAML 1.1, where unquoted on/off/yes/no are booleans and 3000:3000 is a number. */
let compose11: Compose;
let stages: Instruction[][];
let finalStage: Instruction[];
let envExample: ReturnType<typeof parseEnvExample>;
let dockerignore: string[];

beforeAll(() => {
  compose = parseYaml(read('docker-compose.yml'), { merge: true });
  compose11 = parseYaml(read('docker-compose.yml'), { version: '1.1', merge: true });
  stages = parseDockerfile(read('Dockerfile'));
  finalStage = stages[stages.length - 1];
  envExample = parseEnvExample(read('.env.example'));
  dockerignore = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
});

const svc = (name: string): Service => {
  const s = compose.services?.[name];
  if (!s) throw new Error(`docker-compose.yml has no service "${name}"`);
  return s;
};
const envOf = (s: Service): Record<string, unknown> => {
  const e = s.environment ?? {};
  if (Array.isArray(e)) return Object.fromEntries(e.map((kv: string) => [kv.split('=')[0], kv.slice(kv.indexOf('=') + 1)]));
  return e;
};
const dockerfileEnv = () =>
  Object.assign({}, ...finalStage.filter((i) => i.op === 'ENV').map((i) => parseEnvInstruction(i.args))) as Record<string, string>;

describe('src/config.ts environment keys', () => {
  it('are found in the envSchema block (the parser this file relies on is not silently empty)', () => {
    const { keys, anyIndentKeys } = configEnvKeys();
    expect(keys.length).toBeGreaterThanOrEqual(20);
    expect(keys).toEqual(
      expect.arrayContaining(['LABBOT_DATA_DIR', 'CHROMA_URL', 'REDIS_URL', 'LABBOT_ADMIN_TOKEN', 'SLACK_BOT_TOKEN', 'LABBOT_WORKER']),
    );
    // A key written with another indent would be missed by the two-space pattern: both must agree.
    expect(new Set(anyIndentKeys)).toEqual(new Set(keys));
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('.env.example', () => {
  it('names every variable src/config.ts reads, and only those, each once', () => {
    const named = envExample.vars.map((v) => v.key);
    expect(
      named.filter((k) => !CONFIG_KEYS.has(k)),
      'named in .env.example but not read by src/config.ts',
    ).toEqual([]);
    expect(
      [...CONFIG_KEYS].filter((k) => !named.includes(k)),
      'read by src/config.ts but missing from .env.example',
    ).toEqual([]);
    expect(
      named.filter((k, i) => named.indexOf(k) !== i),
      'named twice',
    ).toEqual([]);
  });

  it('gives each variable a one-line comment right above it', () => {
    for (const v of envExample.vars) {
      const above = envExample.lines[v.line - 1] ?? '';
      const describes = /^#\s*\S/.test(above) && !/^#\s?[A-Z][A-Z0-9_]*=/.test(above);
      expect(describes, `${v.key} needs a comment line right above it`).toBe(true);
    }
  });

  it('ships every secret empty', () => {
    const secrets = envExample.vars.filter((v) => /TOKEN|SECRET|API_KEY|PASSWORD/.test(v.key));
    expect(secrets.map((v) => v.key)).toEqual(
      expect.arrayContaining([
        'OPENAI_API_KEY',
        'SLACK_BOT_TOKEN',
        'SLACK_SIGNING_SECRET',
        'SLACK_APP_TOKEN',
        'LABBOT_ADMIN_TOKEN',
        'RERANK_API_KEY',
      ]),
    );
    expect(secrets.filter((v) => v.value.trim() !== '').map((v) => v.key)).toEqual([]);
  });

  it('tells the operator to set LABBOT_ADMIN_TOKEN (compose listens on 0.0.0.0)', () => {
    const v = envExample.vars.find((x) => x.key === 'LABBOT_ADMIN_TOKEN')!;
    expect(v.active).toBe(true);
    expect(envExample.lines[v.line - 1]).toMatch(/REQUIRED|must|set/i);
  });

  it('does not unset what the image sets: no active empty line for a Dockerfile ENV variable', () => {
    const imageEnv = Object.keys(dockerfileEnv());
    expect(imageEnv.length).toBeGreaterThan(0);
    const clobbering = envExample.vars.filter((v) => v.active && imageEnv.includes(v.key));
    // `docker run --env-file .env` with `LABBOT_DATA_DIR=` would replace /data with "unset".
    expect(clobbering.map((v) => v.key)).toEqual([]);
  });

  it('is a valid configuration as shipped', () => {
    const env = Object.fromEntries(envExample.vars.filter((v) => v.active).map((v) => [v.key, v.value]));
    expect(() => loadConfig(env)).not.toThrow();
  });
});

describe('docker-compose.yml', () => {
  it('has the redis, chroma, labbot and worker services', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['redis', 'chroma', 'labbot', 'worker']));
  });

  it('runs Redis 7 with AOF persistence on a volume, noeviction for BullMQ, and a PING health check', () => {
    const r = svc('redis');
    expect(r.image).toMatch(/^redis:7(\.|-|$)/);
    const cmd = Array.isArray(r.command) ? r.command.join(' ') : String(r.command);
    expect(cmd).toMatch(/--appendonly\s+yes/);
    expect(cmd).toMatch(/--maxmemory-policy\s+noeviction/);
    expect(r.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^[a-z][\w-]*:\/data$/)]));
    expect(r.healthcheck.test.join(' ')).toMatch(/redis-cli ping/);
    expect(r.restart).toBe('unless-stopped');
  });

  it('the Redis health check passes against a live Redis', async () => {
    const test: string[] = svc('redis').healthcheck.test;
    expect(test[0]).toBe('CMD-SHELL');
    const r = await run('sh', ['-c', test[1]]);
    expect(r.code, `redis health check against 127.0.0.1:6379 (is Redis running?): ${r.out}`).toBe(0);
    // The same command against a port with nothing behind it must fail.
    const dead = await run('sh', ['-c', test[1].replace('redis-cli', `redis-cli -p ${await deadPort()}`)]);
    expect(dead.code).not.toBe(0);
  });

  it('runs the chromadb/chroma image matching the Chroma server the npm package embeds', () => {
    const pkg = JSON.parse(read('package.json'));
    const pinned: string = pkg.overrides?.[BINDINGS];
    expect(pinned, `package.json overrides ${BINDINGS}`).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = path.resolve('node_modules', BINDINGS, 'package.json');
    if (existsSync(installed)) expect(JSON.parse(readFileSync(installed, 'utf8')).version).toBe(pinned);
    const release = BINDINGS_TO_CHROMA[pinned];
    expect(
      release,
      `no Chroma release known for ${BINDINGS}@${pinned}: find its release commit in chroma-core/chroma and add it to BINDINGS_TO_CHROMA`,
    ).toBeDefined();
    expect(svc('chroma').image).toBe(`chromadb/chroma:${release}`);
    expect(read('docker-compose.yml')).toContain(`chromadb/chroma:${release}`);
  });

  it('keeps Chroma data on a volume at /data and checks its heartbeat', () => {
    const c = svc('chroma');
    expect(c.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^[a-z][\w-]*:\/data$/)]));
    expect(c.healthcheck.test.join(' ')).toContain('/api/v2/heartbeat');
    expect(c.restart).toBe('unless-stopped');
  });

  it('the Chroma health check passes against a real Chroma server and fails with none', async () => {
    const test: string[] = svc('chroma').healthcheck.test;
    expect(test.slice(0, 3)).toEqual(['CMD', 'bash', '-c']);
    const script = test[3];
    // The check and CHROMA_URL agree on the port the image listens on.
    const port = new URL(String(envOf(svc('labbot')).CHROMA_URL)).port;
    expect(script).toContain(`/dev/tcp/127.0.0.1/${port}`);
    const live = new URL(inject('chromaUrl')).port;
    const ok = await run('bash', ['-c', script.replace(`/dev/tcp/127.0.0.1/${port}`, `/dev/tcp/127.0.0.1/${live}`)]);
    expect(ok.code, ok.out).toBe(0);
    const dead = await run('bash', ['-c', script.replace(`/dev/tcp/127.0.0.1/${port}`, `/dev/tcp/127.0.0.1/${await deadPort()}`)]);
    expect(dead.code).not.toBe(0);
    // A server that answers, but not 200, is unhealthy too.
    const fake = await fakeReadyz();
    try {
      const wrong = await run('bash', ['-c', script.replace(`/dev/tcp/127.0.0.1/${port}`, `/dev/tcp/127.0.0.1/${fake.port}`)]);
      expect(wrong.code).not.toBe(0);
      expect(fake.paths).toEqual(['/api/v2/heartbeat']);
    } finally {
      await fake.close();
    }
  });

  it('does not publish Redis or Chroma (no auth on either) on the host', () => {
    expect(svc('redis').ports).toBeUndefined();
    expect(svc('chroma').ports).toBeUndefined();
  });

  it('runs the bot: serve on 3000, worker off, wired to the redis and chroma services', () => {
    const b = svc('labbot');
    expect(b.build === '.' || b.build?.context === '.').toBe(true);
    expect([b.command].flat().join(' ')).toBe('serve');
    // On this machine only; the TLS proxy (profile tls) is the way in: test/security/deploy-proxy.integration.test.ts.
    expect(b.ports).toEqual(['127.0.0.1:3000:3000']);
    expect(b.env_file === '.env' || (Array.isArray(b.env_file) && b.env_file.includes('.env'))).toBe(true);
    expect(envOf(b)).toMatchObject({
      CHROMA_URL: 'http://chroma:8000',
      REDIS_URL: 'redis://redis:6379',
      LABBOT_HOST: '0.0.0.0',
      LABBOT_WORKER: 'off',
    });
    expect(b.volumes).toEqual(
      expect.arrayContaining(['./labbot.config.json:/app/labbot.config.json:ro', expect.stringMatching(/^[a-z][\w-]*:\/data$/)]),
    );
    expect(b.depends_on).toMatchObject({ redis: { condition: 'service_healthy' }, chroma: { condition: 'service_healthy' } });
    expect(b.restart).toBe('unless-stopped');
  });

  it('gives labbot and the worker more stop time than labbot takes to shut down (its forced exit, src/shutdown.ts)', () => {
    // The forced exit is the bound of the whole budget: the drain and the notices come before it.
    expect(SHUTDOWN_BUDGET.answerDrainMs + SHUTDOWN_BUDGET.interruptNoticeMs).toBeLessThan(SHUTDOWN_BUDGET.forcedExitMs);
    for (const name of ['labbot', 'worker']) {
      expect(svc(name).stop_grace_period, `${name}.stop_grace_period`).toBeDefined();
      expect(seconds(svc(name).stop_grace_period) * 1000).toBeGreaterThan(SHUTDOWN_BUDGET.forcedExitMs);
    }
  });

  it("the bot's health check hits /readyz and follows its status", async () => {
    const test: string[] = svc('labbot').healthcheck.test;
    expect(test[0]).toBe('CMD');
    expect(test.join(' ')).toContain('/readyz');
    const fake = await fakeReadyz();
    try {
      const env = { LABBOT_PORT: String(fake.port) };
      expect(await runNodeCheck(test.slice(1), env)).toBe(0);
      fake.setStatus(503);
      expect(await runNodeCheck(test.slice(1), env)).toBe(1);
      expect(fake.paths).toEqual(['/readyz', '/readyz']);
    } finally {
      await fake.close();
    }
    expect(await runNodeCheck(test.slice(1), { LABBOT_PORT: String(await deadPort()) })).toBe(1);
  });

  it('runs the worker from the same image, scalable: no container_name, no ports', () => {
    const w = svc('worker');
    const b = svc('labbot');
    expect([w.command].flat().join(' ')).toBe('worker');
    expect(w.image ?? w.build).toEqual(b.image ?? b.build);
    expect(w.container_name).toBeUndefined();
    expect(w.ports).toBeUndefined();
    expect(w.restart).toBe('unless-stopped');
    expect(envOf(w)).toMatchObject({ CHROMA_URL: 'http://chroma:8000', REDIS_URL: 'redis://redis:6379' });
    expect(w.depends_on).toMatchObject({ redis: { condition: 'service_healthy' }, chroma: { condition: 'service_healthy' } });
    // Replicas must not share the bot's clones: concurrent git fetches collide on git's lock files.
    const botData = (b.volumes as string[]).find((v) => v.endsWith(':/data'))!;
    expect(w.volumes ?? []).not.toContain(botData);
  });

  it("overrides the image's HTTP health check for the worker, which has no HTTP port", () => {
    const hc = svc('worker').healthcheck;
    expect(hc, 'without an override the worker inherits the /readyz check and is never healthy').toBeDefined();
    const disabled = hc.disable === true || (Array.isArray(hc.test) && hc.test[0] === 'NONE');
    if (!disabled) expect(hc.test.join(' ')).not.toContain('/readyz');
  });

  it('declares every named volume it mounts', () => {
    const declared = Object.keys(compose.volumes ?? {});
    expect(declared.length).toBeGreaterThanOrEqual(3);
    for (const [name, s] of Object.entries(compose.services)) {
      for (const v of (s.volumes ?? []) as string[]) {
        const source = v.split(':')[0];
        if (source.startsWith('.') || source.startsWith('/')) continue;
        expect(declared, `${name} mounts undeclared volume ${source}`).toContain(source);
      }
    }
  });

  it('sets only variables src/config.ts reads, as strings, on labbot and the worker', () => {
    for (const name of ['labbot', 'worker']) {
      for (const [k, v] of Object.entries(envOf(svc(name)))) {
        expect(CONFIG_KEYS.has(k), `${name}: ${k} is not read by src/config.ts`).toBe(true);
        expect(typeof v, `${name}: ${k} should be a quoted string`).toBe('string');
      }
      // Unquoted off/on/yes/no are booleans to YAML 1.1 readers; compose rejects boolean values.
      for (const [k, v] of Object.entries(envOf(compose11.services[name]))) {
        expect(typeof v, `${name}: ${k} is not a string when read as YAML 1.1: quote it`).toBe('string');
      }
    }
    // Unquoted HOST:CONTAINER ports under 60 read as base-60 numbers in YAML 1.1: keep them quoted.
    for (const [name, s] of Object.entries(compose11.services)) {
      for (const p of (s.ports ?? []) as unknown[]) expect(typeof p, `${name}: port ${String(p)} should be a quoted string`).toBe('string');
    }
  });

  it('gives a valid configuration once .env is filled in, and the dashboard needs LABBOT_ADMIN_TOKEN', () => {
    const image = dockerfileEnv();
    const dotEnv = Object.fromEntries(envExample.vars.filter((v) => v.active).map((v) => [v.key, v.value]));
    for (const name of ['labbot', 'worker']) {
      // docker: image ENV, then env_file, then environment (each overrides the one before).
      const env = { ...image, ...dotEnv, ...(envOf(svc(name)) as Record<string, string>) };
      delete env.NODE_ENV;
      const config = loadConfig(env);
      expect(config.dataDir).toBe('/data');
      expect(config.chromaUrl).toBe('http://chroma:8000');
      expect(config.redisUrl).toBe('redis://redis:6379');
      if (name === 'labbot') {
        expect(config).toMatchObject({ host: '0.0.0.0', port: 3000, workerInServe: false });
        expect(dashboardStartCheck(config)).toMatch(/LABBOT_ADMIN_TOKEN/);
        const withToken = loadConfig({ ...env, LABBOT_ADMIN_TOKEN: 'x'.repeat(32) });
        expect(dashboardStartCheck(withToken)).toBeUndefined();
      }
    }
  });
});

describe('Dockerfile', () => {
  it('is multi-stage on Node 20 slim images', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s[0].args).toMatch(/^node:20(\.\d+)*-[a-z]+-slim(\s+AS\s+\w+)?$/i);
  });

  it('installs with the repo .npmrc: full `npm ci` to build, `npm ci --omit=dev` at run time', () => {
    const runs = (stage: Instruction[]) => stage.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs(stages[0]).some((r) => /npm ci(?![^&]*--omit=dev)/.test(r))).toBe(true);
    expect(runs(finalStage).some((r) => /npm ci\b[^&]*--omit=dev/.test(r))).toBe(true);
    for (const stage of stages) {
      const firstCi = stage.findIndex((i) => i.op === 'RUN' && /npm ci/.test(i.args));
      if (firstCi < 0) continue;
      const npmrc = stage.findIndex((i) => i.op === 'COPY' && parseCopy(i.args).sources.includes('.npmrc'));
      expect(npmrc, '.npmrc (legacy-peer-deps) must be copied before npm ci').toBeGreaterThanOrEqual(0);
      expect(npmrc).toBeLessThan(firstCi);
    }
  });

  it(
    'runs the CLI bundle built in the image (tsx as the fallback), so esbuild and tsx are ' +
      'runtime dependencies, and src/ingest/bin import no dev dependency',
    () => {
      const pkg = JSON.parse(read('package.json'));
      expect(pkg.dependencies.tsx).toBeDefined();
      expect(pkg.dependencies.esbuild).toBeDefined();
      expect(read('bin/labbot.js')).toContain('tsx');
      // Built where the sources are typechecked; the runtime stage's /app is read-only to the app.
      expect(stages[0].some((i) => i.op === 'RUN' && /node bin\/bundle\.js/.test(i.args))).toBe(true);
      expect(finalStage.some((i) => i.op === 'COPY' && /--from=build\s+\/app\/dist\s+\.\/dist/.test(i.args))).toBe(true);
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const f of readdirSync(dir)) {
          const p = path.join(dir, f);
          if (statSync(p).isDirectory()) walk(p);
          else if (/\.(ts|js|mjs)$/.test(f)) files.push(p);
        }
      };
      ['src', 'bin'].forEach(walk);
      expect(files.length).toBeGreaterThan(10);
      const builtins = new Set(builtinModules);
      const missing = new Set<string>();
      for (const f of files) {
        const text = read(f);
        const specs = [
          ...[...text.matchAll(/^\s*import\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]),
          ...[...text.matchAll(/^\s*export\s+(?!type\s)[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
          ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]),
        ];
        for (const s of specs) {
          if (s.startsWith('.') || s.startsWith('node:') || builtins.has(s.split('/')[0])) continue;
          const name = s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0];
          if (!pkg.dependencies[name]) missing.add(`${name} (${f})`);
        }
      }
      expect([...missing], 'imported at run time but not in "dependencies" (npm ci --omit=dev drops it)').toEqual([]);
    },
  );

  it('installs git, runs as a non-root user with /data writable, and starts `labbot serve`', () => {
    const has = (op: string, re: RegExp) => finalStage.some((i) => i.op === op && re.test(i.args));
    expect(has('RUN', /apt-get install[^&]*--no-install-recommends[^&]*\bgit\b/)).toBe(true);
    const users = finalStage.filter((i) => i.op === 'USER').map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
    expect(finalStage.find((i) => i.op === 'WORKDIR')?.args).toBe('/app');
    expect(dockerfileEnv().LABBOT_DATA_DIR).toBe('/data');
    const volume = finalStage.findIndex((i) => i.op === 'VOLUME' && /\/data/.test(i.args));
    const chown = finalStage.findIndex((i) => i.op === 'RUN' && /chown\s+(-R\s+)?node(:node)?\s+\/data/.test(i.args));
    expect(volume).toBeGreaterThan(0);
    // Changes to a path after VOLUME declares it are discarded: chown first.
    expect(chown).toBeGreaterThanOrEqual(0);
    expect(chown).toBeLessThan(volume);
    expect(has('EXPOSE', /^3000$/)).toBe(true);
    expect(finalStage.find((i) => i.op === 'ENTRYPOINT')?.args).toBe('["node", "bin/labbot.js"]');
    expect(finalStage.find((i) => i.op === 'CMD')?.args).toBe('["serve"]');
  });

  it('sets only environment variables src/config.ts reads (plus NODE_ENV for libraries)', () => {
    const keys = Object.keys(dockerfileEnv());
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k !== 'NODE_ENV' && !CONFIG_KEYS.has(k))).toEqual([]);
  });

  it('copies what the app needs, from files that exist and that .dockerignore lets through', () => {
    const stageNames = stages.map((s) => /\s+AS\s+(\w+)/i.exec(s[0].args)?.[1]);
    const inImage = new Set<string>();
    for (const stage of stages) {
      for (const i of stage.filter((x) => x.op === 'COPY')) {
        const c = parseCopy(i.args);
        if (c.from) {
          expect(stageNames, `COPY --from=${c.from}`).toContain(c.from);
        } else {
          for (const s of c.sources) {
            expect(existsSync(path.resolve(s)), `COPY source ${s} does not exist`).toBe(true);
            expect(dockerIgnored(dockerignore, s), `COPY source ${s} is excluded by .dockerignore`).toBe(false);
          }
        }
        if (stage === finalStage) {
          if (c.dest.endsWith('/')) c.sources.forEach((s) => inImage.add(path.basename(s)));
          else inImage.add(path.basename(c.dest));
        }
      }
    }
    for (const need of ['package.json', 'package-lock.json', 'src', 'bin', 'dist', 'examples', 'labbot.config.json', 'manifest.json']) {
      expect([...inImage], `the runtime stage should contain ${need}`).toContain(need);
    }
  });

  it('.dockerignore keeps local state and secrets out of the build context', () => {
    for (const p of [
      'node_modules',
      'node_modules/x/index.js',
      '.git',
      'data',
      'data/chroma/x.sqlite3',
      'test-output',
      '.env',
      '.env.local',
      'bench/run.local',
      'backups/2025-05-01/redis.jsonl.gz',
    ]) {
      expect(dockerIgnored(dockerignore, p), `${p} should be ignored`).toBe(true);
    }
    expect(dockerIgnored(dockerignore, 'src/cli.ts')).toBe(false);
  });

  it('health check hits /readyz on LABBOT_PORT and follows its status', async () => {
    const hc = finalStage.find((i) => i.op === 'HEALTHCHECK');
    expect(hc, 'HEALTHCHECK').toBeDefined();
    const m = /\bCMD\s+(\[.*\])\s*$/.exec(hc!.args);
    expect(m, 'HEALTHCHECK ... CMD ["node", "-e", ...] (exec form)').not.toBeNull();
    const argv: string[] = JSON.parse(m![1]);
    expect(argv.join(' ')).toContain('/readyz');
    const fake = await fakeReadyz();
    try {
      expect(await runNodeCheck(argv, { LABBOT_PORT: String(fake.port) })).toBe(0);
      fake.setStatus(503);
      expect(await runNodeCheck(argv, { LABBOT_PORT: String(fake.port) })).toBe(1);
      expect(fake.paths).toEqual(['/readyz', '/readyz']);
    } finally {
      await fake.close();
    }
  });
});
