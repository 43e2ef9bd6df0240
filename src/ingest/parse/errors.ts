// Errors the parsers raise. Callers (ingest) log the reason and skip the file, so the reason
// must make sense to a lab member reading the ingest report, not only to a developer.

/** A supported file that could not be turned into text. */
export class ParseError extends Error {
  readonly reason: string;
  readonly fileName?: string;

  constructor(reason: string, options: { cause?: unknown; fileName?: string } = {}) {
    super(options.fileName ? `${options.fileName}: ${reason}` : reason, { cause: options.cause });
    this.name = 'ParseError';
    this.reason = reason;
    this.fileName = options.fileName;
  }
}

/** A file whose extension labbot does not read at all (not an error in the file itself). */
export class UnsupportedFormatError extends Error {
  /** The extension as found, with its dot (".xyz"), or "" when the name has none. */
  readonly extension: string;

  constructor(message: string, extension = '') {
    super(message);
    this.name = 'UnsupportedFormatError';
    this.extension = extension;
  }
}

/** Megabytes for messages: "200", "1.5", "0.0019" (small limits appear in tests and configs). */
export const formatMb = (bytes: number): string => {
  const mb = bytes / (1024 * 1024);
  if (mb >= 10 || Number.isInteger(mb)) return String(Math.round(mb));
  return mb >= 0.1 ? mb.toFixed(1) : String(Number(mb.toPrecision(2)));
};
