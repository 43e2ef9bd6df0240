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
import { parseSenses, sensesStages } from './apertium-senses.ts';
import { apertiumInput, deformatLine, type ModeStage, parseModePipeline, reformat } from './apertium-stream.ts';
import { boundedCache, type TranslationPair, type TranslationStatus, type Translator } from './translator.ts';

export interface ApertiumOptions {
  binary: string;
  pairs: readonly TranslationPair[];
  timeoutMs: number;
  /** Keep each pair's stages running (default); false runs the `apertium` script per call. */
  warm?: boolean;
  /** Where the mode files are; default: `share/apertium/modes` beside the binary's `bin/` (the script's own default). */
  modesDir?: string;
  /** A request failed; `kind` says whether it was the translation or the words' senses. */
  onError?: (err: Error, pair: TranslationPair, kind: RequestKind) => void;
  /** Called once, when the status is first worked out (status() is lazy). */
  onStatus?: (status: TranslationStatus) => void;
  /** The warm pipeline of a pair could not start and that pair now runs the script per call. */
  onFallback?: (err: Error, pair: TranslationPair, kind: RequestKind) => void;
}

/** What is asked of a pair: its translation, or its dictionary's senses (apertium-senses.ts), each with pipelines of its own. */
type RequestKind = 'translation' | 'senses';

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

  const stateOf = (key: string) => {
    let s = states.get(key);
    if (!s) {
      s = { queue: Promise.resolve(), startFailures: 0, perCall: opts.warm === false };
      states.set(key, s);
    }
    return s;
  };
  const giveUp = (s: PairState, err: Error, pair: TranslationPair, kind: RequestKind) => {
    s.perCall = true;
    opts.onFallback?.(err, pair, kind);
  };

  /**
   * One line through a kept-running pipeline built from the pair's mode (`stagesOf` picks its
   * stages, `finish` reads their output), or through `perCall` when it cannot run warm.
   */
  const runWarm = async (
    kind: RequestKind,
    s: PairState,
    line: string,
    pair: TranslationPair,
    stagesOf: (stages: ModeStage[]) => ModeStage[] | undefined,
    finish: (out: string) => string,
    perCall: () => Promise<string | undefined>,
  ): Promise<string | undefined> => {
    if (closed) throw new Error('translator closed');
    if (s.perCall || line.length > MAX_WARM_CHARS) return perCall();
    if (!s.pipeline?.alive) {
      try {
        const stages = stagesOf(parseModePipeline(readFileSync(path.join(modesDir, `${pair.mode}.mode`), 'utf8')));
        if (!stages) throw new Error(`mode ${pair.mode} has no stage for this`);
        s.pipeline = startPipeline(stages.map((st) => ({ ...st, program: program(st.program) })));
      } catch (err) {
        giveUp(s, err as Error, pair, kind);
        return perCall();
      }
    }
    const pipeline = s.pipeline;
    try {
      const out = finish(await pipeline.run(deformatLine(line), opts.timeoutMs));
      s.startFailures = 0;
      return out;
    } catch (err) {
      // Too slow: the pipeline was killed and the next request starts a new one.
      if (err instanceof PipelineTimeoutError || closed) throw err;
      // A stage died: this question is answered per call, and a pipeline that keeps dying
      // before its first answer is given up on.
      if (!pipeline.answered && ++s.startFailures >= MAX_START_FAILURES) giveUp(s, err as Error, pair, kind);
      else opts.onError?.(err as Error, pair, kind);
      return perCall();
    }
  };

  /** One cached, queued request of `kind` for a line: the pair's pipelines answer one at a time. */
  const request = async (
    kind: RequestKind,
    text: string,
    pair: TranslationPair,
    run: (s: PairState, line: string) => Promise<string | undefined>,
  ): Promise<string | undefined> => {
    const { status, missing } = statusNow();
    if (closed || !status.available || missing.includes(pair.mode)) return undefined;
    const line = apertiumInput(text);
    if (!line) return '';
    const key = `${kind}\u0000${pair.mode}\u0000${line}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const s = stateOf(`${kind}\u0000${pair.mode}`);
    const job = s.queue.then(() => run(s, line));
    s.queue = job.catch(() => undefined);
    try {
      const out = await job;
      if (out !== undefined) cache.set(key, out);
      return out;
    } catch (err) {
      opts.onError?.(err as Error, pair, kind);
      return undefined;
    }
  };

  return {
    status: () => statusNow().status,
    translate: (text, pair) =>
      request('translation', text, pair, (s, line) =>
        runWarm(
          'translation',
          s,
          line,
          pair,
          (stages) => stages,
          (out) => reformat(out).trim(),
          () => runScript(opts.binary, line, pair.mode, opts.timeoutMs),
        ),
      ),
    async senses(text, pair) {
      // Only warm: the script runs whole modes, and a question is answered without senses.
      const out = await request('senses', text, pair, (s, line) =>
        runWarm(
          'senses',
          s,
          line,
          pair,
          sensesStages,
          (raw) => raw,
          async () => undefined,
        ),
      );
      return out === undefined ? undefined : parseSenses(out);
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
