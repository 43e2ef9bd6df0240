// A mode's stages kept running: each Apertium stage program, started with -z, flushes its output
// at every NUL byte, so one text + "\0" written to the first stage comes out of the last followed
// by "\0", in about a millisecond instead of the ~0.2 s the `apertium` script spends loading its
// dictionaries per call. No npm library wraps Apertium; this is hand-written on child_process.
// One request at a time (the caller queues): the stream has no request ids, answers come back in
// order, and a second text written before the first's NUL would only wait behind it anyway.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ModeStage } from './apertium-stream.ts';

export interface WarmPipeline {
  /** The last stage's output for one input (without its NUL). Rejects on timeout (the pipeline is then killed) or when a stage dies. */
  run(input: string, timeoutMs: number): Promise<string>;
  /** False once any stage has exited or the pipeline was killed: the caller starts a new one. */
  readonly alive: boolean;
  /** Whether any answer came back: a pipeline that dies before its first could not start. */
  readonly answered: boolean;
  kill(): void;
}

export class PipelineTimeoutError extends Error {}

const STDERR_TAIL = 400;

// Children and their pipes must not keep a process alive on their own (a CLI that forgot to
// close its app would hang); a pending run keeps it alive through its timer.
const unref = (s: unknown) => (s as { unref?: () => void } | null)?.unref?.();

export function startPipeline(stages: readonly ModeStage[]): WarmPipeline {
  let alive = true;
  let answered = false;
  let stderr = '';
  let pending: { resolve(out: string): void; reject(err: Error): void; timer: NodeJS.Timeout } | undefined;
  let buffered: Buffer[] = [];
  const children: ChildProcess[] = [];

  const fail = (err: Error) => {
    if (!alive) return;
    alive = false;
    for (const c of children) {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      c.stdin?.destroy();
      c.stdout?.destroy();
    }
    const p = pending;
    pending = undefined;
    if (p) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  };

  let prev: Readable | undefined;
  for (const [i, stage] of stages.entries()) {
    const child = spawn(stage.program, stage.args, { stdio: [prev ?? 'pipe', 'pipe', 'pipe'] });
    children.push(child);
    child.on('error', (err) => fail(new Error(`${stage.program}: ${err.message}`)));
    child.on('exit', (code, signal) =>
      fail(new Error(`${stage.program} exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim().slice(-STDERR_TAIL)}` : ''}`)),
    );
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.stdin?.on('error', (err) => fail(new Error(`writing to ${stage.program}: ${err.message}`)));
    for (const s of [child, child.stdin, child.stdout, child.stderr]) unref(s);
    // The previous stage's stdout now belongs to this child (spawn has handed it over): the
    // parent's copy is closed, so no descriptor outlives a restart and a stage whose reader died
    // gets EPIPE instead of blocking.
    prev?.destroy();
    prev = i < stages.length - 1 ? (child.stdout ?? undefined) : undefined;
  }
  const first = children[0];
  const last = children[children.length - 1];
  last.stdout?.on('data', (chunk: Buffer) => {
    buffered.push(chunk);
    const end = chunk.indexOf(0);
    if (end < 0) return;
    const all = Buffer.concat(buffered);
    const at = all.indexOf(0);
    buffered = [all.subarray(at + 1)].filter((b) => b.length > 0);
    const p = pending;
    pending = undefined;
    if (!p) return;
    answered = true;
    clearTimeout(p.timer);
    p.resolve(all.subarray(0, at).toString('utf8'));
  });

  return {
    get alive() {
      return alive;
    },
    get answered() {
      return answered;
    },
    kill: () => fail(new Error('pipeline closed')),
    run(input, timeoutMs) {
      if (!alive) return Promise.reject(new Error('pipeline is not running'));
      if (pending) return Promise.reject(new Error('pipeline is busy (requests must be queued)'));
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => fail(new PipelineTimeoutError(`no answer in ${timeoutMs} ms`)), timeoutMs);
        pending = { resolve, reject, timer };
        first.stdin?.write(Buffer.from(`${input}\0`, 'utf8'));
      });
    },
  };
}
