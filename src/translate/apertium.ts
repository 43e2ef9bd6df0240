// The Apertium engine (Debian packages apertium and apertium-en-es): one process per call,
// `apertium -u <mode> <file>`. About 0.2 s a call, most of it start-up; answers
// are cached, since the same question is often asked twice (an edit, a retry, a follow-up).
// Missing binary or mode: status says so and the Asker searches in the question's language only.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TranslationPair, TranslationStatus, Translator } from './translator.ts';

export interface ApertiumOptions {
  binary: string;
  pairs: readonly TranslationPair[];
  timeoutMs: number;
  onError?: (err: Error, pair: TranslationPair) => void;
}

const CACHE_SIZE = 500;
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

export function createApertiumTranslator(opts: ApertiumOptions): Translator {
  const modes = installedModes(opts.binary);
  const missing = modes ? opts.pairs.filter((p) => !modes.includes(p.mode)).map((p) => p.mode) : opts.pairs.map((p) => p.mode);
  const available = modes !== undefined && missing.length < opts.pairs.length;
  const status: TranslationStatus = {
    provider: 'apertium',
    available,
    detail: !modes
      ? `${opts.binary} not found: questions are searched in their own language only (apt-get install apertium apertium-en-es)`
      : missing.length
        ? `modes ${missing.join(', ')} missing (apt-get install apertium-en-es)${
            available
              ? `; using ${opts.pairs
                  .filter((p) => !missing.includes(p.mode))
                  .map((p) => p.mode)
                  .join(', ')}`
              : ''
          }`
        : `modes ${opts.pairs.map((p) => p.mode).join(', ')}`,
  };
  const cache = new Map<string, string>();
  // The text goes in a file, not on stdin: Apertium's script reads /dev/stdin, which cannot be
  // opened when stdin is the socket Node gives a child process.
  const run = async (text: string, mode: string): Promise<string> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'labbot-apertium-'));
    try {
      const file = path.join(dir, 'in.txt');
      await writeFile(file, `${text.replace(/\s+/g, ' ')}\n`);
      const { stdout } = await execFileP(opts.binary, ['-u', mode, file], {
        timeout: opts.timeoutMs,
        maxBuffer: 1 << 20,
        encoding: 'utf8',
      });
      return stdout;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  return {
    status: () => status,
    async translate(text, pair) {
      if (!available || missing.includes(pair.mode)) return undefined;
      const key = `${pair.mode}\u0000${text}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      try {
        const out = (await run(text, pair.mode)).trim();
        if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(key, out);
        return out;
      } catch (err) {
        opts.onError?.(err as Error, pair);
        return undefined;
      }
    },
  };
}

/** No translation: the provider is off. */
export function offTranslator(): Translator {
  return {
    status: () => ({ provider: 'off', available: false, detail: 'translation is off (translation.provider)' }),
    translate: async () => undefined,
  };
}
