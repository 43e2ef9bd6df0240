// The seal on a lexical snapshot: every frame carries an HMAC-SHA256 tag chained to the tag of
// the frame before it, keyed with a secret the index's Redis records hold (records.ts). A load
// verifies each frame before it deserialises it, so a byte changed anywhere in the file (a chunk
// text, a document's access group, a postings list), frames reordered, or frames spliced from
// another snapshot are refused. Whoever can write the data dir but cannot read Redis cannot make
// a file, or a "checked" note, that a load accepts. Without Redis (no records) there is no key:
// a constant one makes the tags a checksum against damage, not a seal.
//
// The header (frame 0) is tagged with that constant key: a load can then read it, checked for
// damage, and tell a snapshot made for another index or other settings (nothing to worry about)
// from one that fails its seal (worth a warning). It is sealed all the same: every later frame's
// tag covers the header's, and a snapshot always has frames after its header.
//
// Why node:crypto's HMAC over a library or WebCrypto: it is OpenSSL's (over 1 GB/s on a core with
// SHA extensions), and WebCrypto's async sign copies its input on this thread first, so it blocks
// about as long as hashing it here.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';

export const TAG_BYTES = 32;

/** The key of a process without records: the tags then only detect damage. */
export const CHECKSUM_ONLY_KEY = Buffer.from('labbot lexical snapshot: no records, checksum only');

/** The tag before the first frame's. */
export const FIRST_TAG: Buffer = Buffer.alloc(TAG_BYTES);

const FRAME_LABEL = Buffer.from('labbot-lexical-frame\0');
const NOTE_LABEL = 'labbot-lexical-checked\0';
// Hashed in slices with a turn of the event loop between them, so a frame of 100 MB of chunk
// texts does not hold up answers (or Slack acks) for the ~70 ms it takes in one call.
const SLICE = 4 << 20;

/** The tag of frame `index`, whose predecessor's tag is `prev`. */
export async function frameTag(key: Buffer, index: number, prev: Buffer, body: Uint8Array): Promise<Buffer> {
  const h = createHmac('sha256', index === 0 ? CHECKSUM_ONLY_KEY : key)
    .update(FRAME_LABEL)
    .update(prev);
  for (let at = 0; at < body.length; at += SLICE) {
    if (at > 0) await turn();
    h.update(body.subarray(at, Math.min(at + SLICE, body.length)));
  }
  return h.digest();
}

export const sameTag = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/** The tag of a note saying the snapshot `snapshotId` equals the records at `revision`. */
export const noteTag = (key: Buffer, snapshotId: string, revision: string): string =>
  createHmac('sha256', key).update(`${NOTE_LABEL}${snapshotId}\0${revision}`).digest('hex');

export const noteTagMatches = (key: Buffer, snapshotId: string, revision: string, tag: string): boolean =>
  /^[0-9a-f]{64}$/.test(tag) && sameTag(Buffer.from(noteTag(key, snapshotId, revision), 'hex'), Buffer.from(tag, 'hex'));
