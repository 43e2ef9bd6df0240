// File bytes -> ParsedFile, dispatching on the extension. Every failure leaves as a ParseError
// (or UnsupportedFormatError) with a reason a lab member can act on; library exceptions are kept
// only as the `cause`.
import type { Block, ParsedFile } from '../../types.ts';
import { decodeText } from './decode.ts';
import { ParseError, UnsupportedFormatError, formatMb } from './errors.ts';

export { ParseError, UnsupportedFormatError } from './errors.ts';

export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
// Here rather than in zip.ts: importing zip.ts loads JSZip, which only Office files need.
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 120_000;

export const SUPPORTED_EXTENSIONS = ['.md', '.markdown', '.txt', '.text', '.pdf', '.pptx', '.docx', '.html', '.htm'] as const;

export interface ParseOptions {
  /** Refuse inputs larger than this (default 100 MB). */
  maxBytes?: number;
  /** Refuse PPTX/DOCX archives that expand beyond this (default 200 MB). */
  maxUncompressedBytes?: number;
  /** Give up after this long (default 120 s); pdf.js work is cancelled. */
  timeoutMs?: number;
}

/** The extension of a file name, lower-case with its dot, or "" ("notes.PDF" -> ".pdf"). */
export function extensionOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

export function isSupported(name: string): boolean {
  return (SUPPORTED_EXTENSIONS as readonly string[]).includes(extensionOf(name));
}

const hasText = (b: Block): boolean => {
  switch (b.type) {
    case 'page':
      return false;
    case 'list':
      return b.items.some((i) => i.trim());
    case 'table':
      return [...b.header, ...b.rows.flat()].some((c) => c.trim());
    case 'slide':
      return Boolean((b.title + b.body + b.notes).trim());
    default:
      return b.text.trim() !== '';
  }
};

function decoded(bytes: Uint8Array, parse: (text: string) => ParsedFile): ParsedFile {
  const { text, warnings } = decodeText(bytes);
  const parsed = parse(text);
  return { ...parsed, warnings: [...warnings, ...parsed.warnings] };
}

// Format parsers load on first use: pdf.js, mammoth and cheerio cost ~150 MB of RSS that a
// process only answering questions (or ingesting only Markdown) never needs.
async function dispatch(ext: string, bytes: Uint8Array, opts: Required<ParseOptions>, signal: AbortSignal): Promise<ParsedFile> {
  switch (ext) {
    case '.md':
    case '.markdown':
      return decoded(bytes, (await import('./markdown.ts')).parseMarkdown);
    case '.txt':
    case '.text':
      return decoded(bytes, (await import('./text.ts')).parseText);
    case '.html':
    case '.htm':
      return decoded(bytes, (await import('./html.ts')).parseHtml);
    case '.pdf':
      return (await import('./pdf.ts')).parsePdf(bytes, { signal });
    case '.pptx':
      return (await import('./pptx.ts')).parsePptx(bytes, { maxUncompressedBytes: opts.maxUncompressedBytes });
    case '.docx':
      return (await import('./docx.ts')).parseDocx(bytes, { maxUncompressedBytes: opts.maxUncompressedBytes });
    default:
      throw new UnsupportedFormatError(`unsupported file type "${ext}"`, ext);
  }
}

function wrap(err: unknown, fileName: string): ParseError | UnsupportedFormatError {
  if (err instanceof UnsupportedFormatError) return err;
  if (err instanceof ParseError) {
    return err.fileName ? err : new ParseError(err.reason, { cause: err.cause, fileName });
  }
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new ParseError('structure nested too deeply to parse', { cause: err, fileName });
  }
  const detail = err instanceof Error ? err.message.split('\n')[0].slice(0, 200) : String(err);
  return new ParseError(`could not be parsed (${detail})`, { cause: err, fileName });
}

/**
 * Parse one file. Throws UnsupportedFormatError for extensions labbot does not read and
 * ParseError for everything that goes wrong with a supported file.
 */
export async function parseFile(input: { name: string; bytes: Uint8Array }, opts: ParseOptions = {}): Promise<ParsedFile> {
  const { name, bytes } = input;
  const ext = extensionOf(name);
  if (!isSupported(name)) {
    const what = ext ? `unsupported file type "${ext}"` : 'file has no extension';
    throw new UnsupportedFormatError(`${name}: ${what} (supported: ${SUPPORTED_EXTENSIONS.join(', ')})`, ext);
  }
  const options: Required<ParseOptions> = {
    maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
    maxUncompressedBytes: opts.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  if (bytes.length === 0) throw new ParseError('empty file', { fileName: name });
  if (bytes.length > options.maxBytes) {
    throw new ParseError(`file is ${formatMb(bytes.length)} MB, over the limit of ${formatMb(options.maxBytes)} MB`, { fileName: name });
  }

  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      const ms = options.timeoutMs;
      reject(new ParseError(`timed out after ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`, { fileName: name }));
    }, options.timeoutMs);
  });
  try {
    const parsed = await Promise.race([dispatch(ext, bytes, options, controller.signal), timeout]);
    if (!parsed.blocks.some(hasText)) throw new ParseError('no text content', { fileName: name });
    return parsed;
  } catch (err) {
    throw wrap(err, name);
  } finally {
    clearTimeout(timer);
  }
}
