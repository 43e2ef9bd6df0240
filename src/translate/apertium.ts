// The Apertium engine (Debian packages apertium and apertium-en-es). Two ways to run a mode:
// warm (the default), its stages started once per pair and kept running (apertium-pipeline.ts),
// about a millisecond a call; or per call, `apertium -u <mode> <file>`, about 0.2 s a call, most
// of it start-up. The per-call script is the fallback when the stages cannot be started (a mode
// file that is not a plain pipeline, programs missing, repeated crashes at start). Answers are
// cached, since the same question is often asked twice (an edit, a retry, a follow-up).
// Missing binary or mode: status says so and the Asker searches in the question's language only.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PipelineTimeoutError, startPipeline, type WarmPipeline } from './apertium-pipeline.ts';
import { apertiumInput, deformatLine, parseModePipeline, reformat } from './apertium-stream.ts';
import { boundedCache, type TranslationPair, type TranslationStatus, type Translator } from './translator.ts';

export interface ApertiumOptions {
  binary: string;
  pairs: readonly TranslationPair[];
  timeoutMs: number;
  /** Keep each pair's stages running (default); false runs the `apertium` script per call. */
  warm?: boolean;
  /** Where the mode files are; default: `share/apertium/modes` beside the binary's `bin/` (the script's own default). */
  modesDir?: string;
  onError?: (err: Error, pair: TranslationPair) => void;
  /** Called once, when the status is first worked out (status() is lazy). */
  onStatus?: (status: TranslationStatus) => void;
  /** The warm pipeline of a pair could not start and that pair now runs the script per call. */
  onFallback?: (err: Error, pair: TranslationPair) => void;
}

/** Starts that die before their first answer, in a row, before a pair gives up on the warm pipeline. */
const MAX_START_FAILURES = 3;
/** Past this the deformatter may spill a blank to a temporary file, which only the script reads back. */
const MAX_WARM_CHARS = 8000;
const execFileP = promisify(execFile);

/** The modes the installed Apertium lists (`apertium -l`), or undefined when it cannot be run. */
export function installedModes(binary: string): string[] | undefined {
  const r = spawnSync(binary, ['-l'], { encoding: 'utf8', timeout: 5000 });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

function statusOf(opts: ApertiumOptions, modes: string[] | undefined): { status: TranslationStatus; missing: string[] } {
  const missing = modes ? opts.pairs.filter((p) => !modes.includes(p.mode)).map((p) => p.mode) : opts.pairs.map((p) => p.mode);
  const available = modes !== undefined && missing.length < opts.pairs.length;
  const using = opts.pairs.filter((p) => !missing.includes(p.mode)).map((p) => p.mode);
  const detail = !modes
    ? `${opts.binary} not found: questions are searched in their own language only (apt-get install apertium apertium-en-es)`
    : missing.length
      ? `modes ${missing.join(', ')} missing (apt-get install apertium-en-es)${available ? `; using ${using.join(', ')}` : ''}`
      : `modes ${using.join(', ')}`;
  return { status: { provider: 'apertium', available, detail }, missing };
}

/** The binary's install prefix: /usr/bin/apertium -> /usr (a bare name is looked up as the shell would, in its usual place). */
function installPrefix(binary: string): string {
  if (!binary.includes('/')) return '/usr';
  try {
    return path.dirname(path.dirname(realpathSync(binary)));
  } catch {
    return path.dirname(path.dirname(binary));
  }
}

/**
 * The script per call. The text goes in a file, not on stdin: the script reads /dev/stdin, which
 * cannot be opened when stdin is the socket Node gives a child process.
 */
async function runScript(binary: string, line: string, mode: string, timeoutMs: number): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'labbot-apertium-'));
  try {
    const file = path.join(dir, 'in.txt');
    await writeFile(file, `${line}\n`);
    const { stdout } = await execFileP(binary, ['-u', mode, file], { timeout: timeoutMs, maxBuffer: 1 << 20, encoding: 'utf8' });
    return stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface PairState {
  pipeline?: WarmPipeline;
  /** The tail of the requests for this pair: the pipeline answers one at a time. */
  queue: Promise<unknown>;
  startFailures: number;
  /** Gave up on the warm pipeline (it cannot start): the script per call from now on. */
  perCall: boolean;
}

export function createApertiumTranslator(opts: ApertiumOptions): Translator {
  // Worked out on first use, not at creation: a process that never translates (a worker, a
  // reindex) does not run `apertium -l`.
  let known: ReturnType<typeof statusOf> | undefined;
  const statusNow = () => {
    if (!known) {
      known = statusOf(opts, installedModes(opts.binary));
      opts.onStatus?.(known.status);
    }
    return known;
  };
  const prefix = installPrefix(opts.binary);
  const modesDir = opts.modesDir ?? path.join(prefix, 'share', 'apertium', 'modes');
  // The script puts its own bin/ first on PATH; a stage program beside the binary is used by path.
  const program = (name: string) => {
    const beside = path.join(path.dirname(opts.binary), name);
    return opts.binary.includes('/') && existsSync(beside) ? beside : name;
  };
  const states = new Map<string, PairState>();
  const cache = boundedCache();
  let closed = false;

  const stateOf = (mode: string) => {
    let s = states.get(mode);
    if (!s) {
      s = { queue: Promise.resolve(), startFailures: 0, perCall: opts.warm === false };
      states.set(mode, s);
    }
    return s;
  };
  const giveUp = (s: PairState, err: Error, pair: TranslationPair) => {
    s.perCall = true;
    opts.onFallback?.(err, pair);
  };

  const runWarm = async (s: PairState, line: string, pair: TranslationPair): Promise<string> => {
    if (closed) throw new Error('translator closed');
    if (s.perCall || line.length > MAX_WARM_CHARS) return runScript(opts.binary, line, pair.mode, opts.timeoutMs);
    if (!s.pipeline?.alive) {
      try {
        const stages = parseModePipeline(readFileSync(path.join(modesDir, `${pair.mode}.mode`), 'utf8'));
        s.pipeline = startPipeline(stages.map((st) => ({ ...st, program: program(st.program) })));
      } catch (err) {
        giveUp(s, err as Error, pair);
        return runScript(opts.binary, line, pair.mode, opts.timeoutMs);
      }
    }
    const pipeline = s.pipeline;
    try {
      const out = reformat(await pipeline.run(deformatLine(line), opts.timeoutMs)).trim();
      s.startFailures = 0;
      return out;
    } catch (err) {
      // Too slow: the pipeline was killed and the next request starts a new one.
      if (err instanceof PipelineTimeoutError || closed) throw err;
      // A stage died: this question is answered by the script, and a pipeline that keeps dying
      // before its first answer is given up on.
      if (!pipeline.answered && ++s.startFailures >= MAX_START_FAILURES) giveUp(s, err as Error, pair);
      else opts.onError?.(err as Error, pair);
      return runScript(opts.binary, line, pair.mode, opts.timeoutMs);
    }
  };

  return {
    status: () => statusNow().status,
    async translate(text, pair) {
      const { status, missing } = statusNow();
      if (closed || !status.available || missing.includes(pair.mode)) return undefined;
      const line = apertiumInput(text);
      if (!line) return '';
      const key = `${pair.mode}\u0000${line}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const s = stateOf(pair.mode);
      const job = s.queue.then(() => runWarm(s, line, pair));
      s.queue = job.catch(() => undefined);
      try {
        const out = await job;
        cache.set(key, out);
        return out;
      } catch (err) {
        opts.onError?.(err as Error, pair);
        return undefined;
      }
    },
    async close() {
      closed = true;
      for (const s of states.values()) s.pipeline?.kill();
    },
  };
}

/** No translation: the provider is off. */
export function offTranslator(): Translator {
  return {
    status: () => ({ provider: 'off', available: false, detail: 'translation is off (translation.provider)' }),
    translate: async () => undefined,
    close: async () => {},
  };
}
