// Title, authors and year of a paper from the layout of its first page, for PDFs whose info
// dictionary says nothing (most downloads and preprints):
//  - title: the largest text on the upper part of page 1 that reads as a title (not a journal
//    masthead, article-type label, running head, URL or date line), joined across its lines;
//  - authors: the lines right under the title that read as a list of names, with affiliation
//    markers (superscripts, "Sharma1,2*", "†") removed; "A. Sharma, B. Lee and C. Wu",
//    "Ana Sharma, Ben Lee, and Chen Wu", "Sharma A, Lee B" and capitals are all read;
//  - year: a journal citation line, a © line, a "Published"/"Accepted"/"Received" date, or a DOI
//    that carries a date (bioRxiv's 10.1101/2022.03.01…, Elsevier's j.cell.2022…). Never the
//    file's creation date: a 2022 paper saved again in 2026 is still from 2022.
// Pure: positioned lines in, metadata out. No rule here is about one publisher's layout.
import type { DocMeta } from '../../types.ts';
import type { LayoutLine, PageLayout } from './pdf-layout.ts';

const MIN_YEAR = 1800;
// Words of a line that is about the article, the journal or the page, not the title.
const CHROME = new RegExp(
  String.raw`(https?:\/\/|www\.|\bdoi\b|@|©|\(c\)|copyright|\bvol\.?\s*\d|\bvolume\b|\bissue\b|` +
    String.raw`\bpp\.?\s*\d|\bissn\b|\bpages?\s+\d|\breceived\b|\baccepted\b|\bpublished\b|\brevised\b|` +
    String.raw`\bonline\b|\bcorrespond|\bpreprint\b|\bposted\b|\blicen[cs]e\b|\bcitation\b|\bcite\b|` +
    String.raw`\barxiv\b|\bbiorxiv\b|\bmedrxiv\b|\bdownloaded\b|\bopen access\b|\bpeer[- ]review)`,
  'i',
);
// Article-type labels printed above titles ("Research Article", "ORIGINAL PAPER", "Brief Communication").
const LABEL = new RegExp(
  String.raw`^(?:(?:research|original|review|short|brief|rapid|full|technical|methods?|resource|` +
    String.raw`perspective|commentary|editorial|letter|report|communication|articles?|papers?|reports?|` +
    String.raw`reviews?|letters?|new|results?|tools?|and|&|-|–|\/|·|\||open|access|cell|biology|` +
    String.raw`sciences?|research)\s*)+$`,
  'i',
);
// A journal's name printed as a masthead: "Journal of Statistical Software", "Proceedings of …".
const JOURNAL_NAME = new RegExp(
  String.raw`^(?:the\s+)?(?:international\s+)?(?:journal|proceedings|annals|transactions|bulletin|` +
    String.raw`archives|acta|reviews?|letters|reports|advances|frontiers|trends)\s+(?:of|in|on|for)\b`,
  'i',
);
const KNOWN_HEADINGS =
  /^(abstract|summary|introduction|background|keywords?|key words|highlights|significance|graphical abstract|in brief|main|results|methods)\b/i;
const INSTITUTION = new RegExp(
  String.raw`\b(universit|institut|department|dept\b|laborator|hospital|cent(?:er|re)\b|school|college|` +
    String.raw`faculty|academy|inc\b|ltd\b|gmbh|foundation|museum|division|program|unit\b|road\b|` +
    String.raw`street\b|avenue\b|usa\b|u\.s\.a|uk\b|united|china|germany|france|japan|india|spain|italy|` +
    String.raw`canada|australia|netherlands|switzerland|sweden|brazil|korea)`,
  'i',
);

const words = (s: string) => s.split(/\s+/).filter(Boolean);
const letters = (s: string) => (s.match(/\p{L}/gu) ?? []).length;

/** A line that cannot be (part of) a title, whatever its size. */
function notTitle(l: LayoutLine): boolean {
  const t = l.text;
  if (letters(t) < 3) return true;
  if (CHROME.test(t)) return true;
  if (LABEL.test(t.trim())) return true;
  if (JOURNAL_NAME.test(t.trim()) && words(t).length <= 7) return true;
  if (KNOWN_HEADINGS.test(t.trim()) && words(t).length <= 3) return true;
  // A citation line: "Development 149, dev200123 (2022)", "J Lab Methods 12 (2021) 345-360".
  if (/\(\s*(1[89]|20)\d\d\s*\)|\b(1[89]|20)\d\d\s*[;,]\s*\d/.test(t)) return true;
  return false;
}

interface TitleBlock {
  lines: LayoutLine[];
  text: string;
}

/** The block of lines a title starting at `first` spans: same size, close below, overlapping it. */
function blockFrom(page: PageLayout, first: LayoutLine): TitleBlock {
  const block: LayoutLine[] = [first];
  for (let i = page.lines.indexOf(first) + 1; i < page.lines.length; i++) {
    const l = page.lines[i];
    const prev = block[block.length - 1];
    if (l.top - prev.top > prev.size * 2.2) break;
    // Lines beside the title (another column) are not part of it.
    if (l.x1 < prev.x0 || l.x0 > prev.x1) continue;
    // A title's last line may be one short word ("…mutants lacking" + "p53"): only chrome ends it.
    if (Math.abs(l.size - first.size) > Math.max(0.6, first.size * 0.06) || (notTitle(l) && letters(l.text) >= 3)) break;
    block.push(l);
  }
  return { lines: block, text: joinTitle(block.map((l) => l.text)) };
}

const squashKey = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * The title and the authors under it. Candidates are the lines in the upper two thirds of the
 * page, set larger than the body text, that may be a title; each starts a block of lines of its
 * size. The largest block wins, unless a block nearly as large has a line of names under it and
 * it has none (a journal masthead has no authors; a title does). A short block whose words are a
 * journal name printed in the page's citation line is that journal, not a title.
 */
export function findTitle(page: PageLayout): { title: TitleBlock; authors?: string[] } | undefined {
  const upper = page.lines.filter((l) => l.top < page.height * 0.7);
  const candidates = upper.filter((l) => !notTitle(l));
  const sizable = candidates.filter((l) => words(l.text).length >= 3 || l.text.length >= 20);
  const pool = sizable.length ? sizable : candidates.filter((l) => words(l.text).length >= 2);
  const bodySize = medianSize(page.lines);
  const chromeText = page.lines
    .filter((l) => CHROME.test(l.text) || /\b(1[89]|20)\d\d\b/.test(l.text))
    .map((l) => ` ${squashKey(l.text)} `);
  const blocks: { block: TitleBlock; size: number; authors?: string[] }[] = [];
  const used = new Set<LayoutLine>();
  for (const l of [...pool].sort((a, b) => b.size - a.size || a.top - b.top)) {
    if (used.has(l) || l.size < bodySize * 1.15) continue;
    const block = blockFrom(page, l);
    for (const x of block.lines) used.add(x);
    if (words(block.text).length <= 5 && chromeText.some((c) => c.includes(` ${squashKey(block.text)} `))) continue;
    blocks.push({ block, size: l.size, authors: findAuthors(page, block, bodySize) });
    if (blocks.length >= 4) break;
  }
  if (blocks.length === 0) return undefined;
  const largest = blocks[0];
  const named = blocks.find((b) => b.authors && b.size >= largest.size * 0.5);
  const best = !largest.authors && named ? named : largest;
  return { title: best.block, authors: best.authors };
}

function medianSize(lines: LayoutLine[]): number {
  const sizes = lines.flatMap((l) => Array(Math.max(1, Math.round(l.text.length / 10))).fill(l.size) as number[]).sort((a, b) => a - b);
  return sizes[Math.floor(sizes.length / 2)] ?? 0;
}

/** Lines of a title joined: a line ending in a hyphen ("Wnt-" + "dependent") joins without a space. */
export function joinTitle(parts: string[]): string {
  let out = '';
  for (const p of parts) {
    const t = p.trim();
    if (!out) out = t;
    else if (/\p{L}-$/u.test(out)) out += t;
    else out += ` ${t}`;
  }
  return out
    .replace(/\s+/g, ' ')
    .replace(/[.\s]+$/, '')
    .trim();
}

// Affiliation and footnote markers glued to names: "Sharma1,2*", "Lee2†", "Wu a,b" are removed.
const MARKERS = /(?<=[\p{L}.])\s?(?:[\d*†‡§¶#✉]+(?:\s*,\s*[\d*†‡§¶#✉]+)*)(?=[\s,;]|$|\s*(?:and|&)\s)/gu;
// Degrees after names in clinical journals ("Ana Sharma, MD, PhD"): after a comma only, since
// "Sharma MD" in a Vancouver list is a name with two initials.
const DEGREES = /,\s*(?:Ph\.?\s?D|M\.?D|MSc|M\.Sc|BSc|B\.Sc|MPH|DPhil|FRCPC?|MBBS|DVM|RN|MBChB)\.?(?=\s*(?:,|$|\s(?:and|&)\s))/g;
const SYMBOLS = /[*†‡§¶#✉]+/g;

const PARTICLE = /^(?:van|von|der|den|de|del|della|di|da|du|des|le|la|dos|das|ten|ter|bin|al|el|y|zu)$/;

/** A word printed in capitals, in the case names are written in: "O'BRIEN" -> "O'Brien", "JEAN-PIERRE" -> "Jean-Pierre". */
const titleCase = (w: string) =>
  w.length > 1 && w === w.toUpperCase() && /\p{L}{2}/u.test(w)
    ? w.toLowerCase().replace(/(^|['’-])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase())
    : w;

/** One name as printed: 2 to 5 words, each a capitalised word, an initial or a particle; no digits. */
function looksLikeName(n: string): boolean {
  const ws = words(n);
  if (ws.length < 2 || ws.length > 5) return false;
  if (/\d|@|\(|\)/.test(n) || INSTITUTION.test(n)) return false;
  let capitalised = 0;
  for (const w of ws) {
    if (/^(?:\p{Lu}\.?-?){1,3}\.?$/u.test(w)) continue; // initials: "A.", "AK", "J.-P."
    if (/^\p{Lu}[\p{L}'’]*\p{Ll}[\p{L}'’]*(?:-\p{L}[\p{L}'’]*)*\.?$/u.test(w)) {
      capitalised++;
      continue;
    }
    if (PARTICLE.test(w)) continue;
    if (/^(?:jr|sr|ii|iii|iv)\.?$/i.test(w)) continue;
    return false;
  }
  return capitalised >= 1;
}

/** The names of an author line, or undefined when the line is not one. */
export function parseAuthorLine(text: string): string[] | undefined {
  // A marker glued to the next word ("Silva2and Wei", the space lost to kerning) still ends a name.
  let t = text
    .replace(/(?<=\p{L})([\d*†‡§¶#✉]+)(and|&)(?=\s)/gu, '$1 $2')
    .replace(MARKERS, '')
    .replace(SYMBOLS, ' ')
    .replace(DEGREES, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+,/g, ',')
    .trim();
  // "Yu.A.Pusep, L.Fernandes": initials set without spaces; "Dr. Saeed Murtaza": an honorific.
  t = t.replace(/(\p{L})\.(?=\p{Lu})/gu, '$1. ').replace(/(^|,\s*|\s(?:and|&)\s)(?:Dr|Prof|Professor|Mr|Mrs|Ms)\.?\s+/g, '$1');
  t = t.replace(/^(?:by|authors?:)\s+/i, '').replace(/[,;\s]+$/, '');
  if (!t || /\d|@/.test(t) || INSTITUTION.test(t) || CHROME.test(t) || LABEL.test(t)) return undefined;
  // Capitals ("ANA SHARMA, BEN LEE"): names in title case, initials kept.
  const nameWords = t.split(' ').filter((w) => !/^(?:and|&)$/i.test(w));
  if (nameWords.every((w) => w === w.toUpperCase()) && /\p{Lu}{3}/u.test(t)) {
    // Particles go back to lower case inside a name ("ANA DA SILVA" -> "Ana da Silva"), not at its start.
    const ws = t.split(' ');
    t = ws
      .map((w, i) => {
        if (/^\p{Lu}\.?$/u.test(w)) return w;
        if (/^and$/i.test(w)) return 'and';
        const lower = w.toLowerCase();
        const startsName = i === 0 || /,$/.test(ws[i - 1]) || /^(?:and|&)$/i.test(ws[i - 1]);
        return PARTICLE.test(lower) && !startsName ? lower : titleCase(w);
      })
      .join(' ');
  }
  const names = splitNames(t).map(familyInCapitals);
  if (names.length === 0 || !names.every(looksLikeName)) return undefined;
  return names;
}

/** "Ross G. DOUGLAS" (family names set in capitals, as some journals print them) -> "Ross G. Douglas". */
function familyInCapitals(name: string): string {
  const ws = name.split(' ');
  if (!ws.some((w) => /\p{Ll}/u.test(w))) return name;
  return ws.map((w, i) => (/^\p{Lu}[\p{Lu}'’-]+$/u.test(w) && (i === ws.length - 1 || w.length >= 4) ? titleCase(w) : w)).join(' ');
}

const INITIALS_ONLY = /^(?:\p{Lu}\.?-?){1,3}$/u;

/**
 * Names of a printed author line, in the order printed: "A, B and C", "A, B, and C", "A & B",
 * "Sharma A, Lee B" (Vancouver: initials after the name, turned around), "Sharma, A., Lee, B.".
 * Printed lines never use BibTeX's "Family, Given and Family, Given", so no name is inverted.
 */
function splitNames(t: string): string[] {
  const tokens = t
    .split(/\s*[,;]\s*(?:(?:and|&)\s+)?|\s+(?:and|&)\s+/)
    .map((x) => x.trim())
    .filter(Boolean);
  // "Sharma, A., Lee, B.": every other token is initials.
  if (
    tokens.length >= 2 &&
    tokens.length % 2 === 0 &&
    tokens.every((x, i) => (i % 2 === 1) === INITIALS_ONLY.test(x.replace(/\s+/g, '')))
  ) {
    const out: string[] = [];
    for (let i = 0; i < tokens.length; i += 2) out.push(`${tokens[i + 1]} ${tokens[i]}`);
    return out;
  }
  return tokens.map((n) => {
    const ws = n.split(' ');
    const last = ws[ws.length - 1];
    return ws.length >= 2 && INITIALS_ONLY.test(last) && !last.includes('.') && !INITIALS_ONLY.test(ws[0])
      ? `${last} ${ws.slice(0, -1).join(' ')}`
      : n;
  });
}

/**
 * Authors: the lines under the title that read as names, joined while they continue ("…, Ben
 * Lee," + "Chen Wu"), up to the first that does not. A label or subtitle or two between title and
 * authors is passed over; affiliations, dates and the abstract end the search.
 */
export function findAuthors(page: PageLayout, title: TitleBlock, bodySize = medianSize(page.lines)): string[] | undefined {
  const last = title.lines[title.lines.length - 1];
  const left = Math.min(...title.lines.map((l) => l.x0)) - 60;
  const right = Math.max(...title.lines.map((l) => l.x1)) + 60;
  const below = page.lines.filter((l) => l.top > last.top && l.top - last.top < last.size * 10 && l.x1 >= left && l.x0 <= right);
  let names: string[] | undefined;
  let joined = '';
  let skipped = 0;
  let size: number | undefined;
  for (const l of below.slice(0, 10)) {
    if (l.size >= last.size - 0.5 && !names) break;
    // An author list is set in one size, and a heading ("Abstract") is not a name.
    if (names && (Math.abs(l.size - (size ?? l.size)) > 1 || KNOWN_HEADINGS.test(l.text.trim()))) break;
    // The next line continues the list, or (when that does not read as names) the name cut at
    // the line break: "…, Edward Van" + "Keuren, Alan Migdall".
    const joins = joined ? (/(,|\band|&)\s*$/.test(joined) ? [' '] : [', ', ' ']) : [''];
    let candidate = '';
    let parsed: string[] | undefined;
    for (const j of joins) {
      candidate = `${joined}${j}${l.marked}`;
      parsed = parseAuthorLine(candidate);
      if (parsed) break;
    }
    if (parsed) {
      names = parsed;
      joined = candidate;
      size ??= l.size;
      continue;
    }
    // What may stand between a title and its byline is small (a label, a date): a line set as
    // large as a heading is a title of its own (under a masthead, the paper's).
    if (names || ++skipped > 2 || l.size >= bodySize * 1.15) break;
  }
  return names;
}

const yearOf = (s: string | undefined): number | undefined => {
  const y = s ? Number(s) : NaN;
  return Number.isInteger(y) && y >= MIN_YEAR && y <= new Date().getUTCFullYear() + 1 ? y : undefined;
};

/** Years printed on page 1 by kind of line, strongest kind first. */
export function findYear(page: PageLayout, title: TitleBlock | undefined): number | undefined {
  const text = page.lines.map((l) => l.text);
  const titleLines = new Set(title?.lines ?? []);
  const bands = page.lines.filter((l) => !titleLines.has(l) && (l.top < page.height * 0.18 || l.top > page.height * 0.85));
  // 1. The journal's citation line in the header or footer: "Development 149 (2022)", "2022;38:110123".
  const journalLine = (s: string) =>
    /\(\s*((?:1[89]|20)\d\d)\s*\)/.exec(s)?.[1] ??
    /\b((?:1[89]|20)\d\d)\s*[;:]\s*\d/.exec(s)?.[1] ??
    // Not an article number that looks like a year: "Vol 39 | Article 2013".
    /\b(?:vol\.?|volume)\s*\d+[^\n]{0,30}?(?<!\b(?:article|art\.|no\.?|number|nr\.?|e|pp?\.?)\s*:?\s*)\b((?:1[89]|20)\d\d)\b/i.exec(
      s,
    )?.[1] ??
    /\b((?:1[89]|20)\d\d)\s*,\s*(?:vol\.?|volume)\s*\d/i.exec(s)?.[1] ??
    /\b\d{1,3}\s*,\s*\w+\s*,\s*(?:\w+\s+\d{1,2},\s*)?((?:1[89]|20)\d\d)\b/.exec(s)?.[1];
  const fromBands = (fn: (s: string) => string | undefined) => {
    for (const l of bands) {
      if (/\bet al\.?,?\s*\(?\d{4}|\breceived\b|\bsubmitted\b/i.test(l.text)) continue;
      const y = yearOf(fn(l.text));
      if (y) return y;
    }
    return undefined;
  };
  // "© 2022 The Authors", "Copyright © 2022 Sharma et al.", "© The Author(s) 2022".
  const copyright = (s: string) => /(?:©|\(c\)|copyright)[^.;]{0,40}?\b((?:1[89]|20)\d\d)\b/i.exec(s)?.[1];
  const dated = (word: RegExp) => (s: string) => {
    const m = word.exec(s);
    if (!m) return undefined;
    return /((?:1[89]|20)\d\d)/.exec(s.slice(m.index, m.index + m[0].length + 40))?.[1];
  };
  const published = dated(
    /\b(?:published(?:\s+online)?|first published|posted|this version posted|available online|e-?pub(?:lished)?(?:\s+ahead of print)?|issue date)\b/i,
  );
  const accepted = dated(/\baccepted\b/i);
  const received = dated(/\b(?:received|submitted)\b/i);
  // A citation of this paper anywhere on the page: "54 a, 272-273 (1999)", "(2021) 12, 345-360",
  // "2022;38(4):110123" (after the dates: a reference list on page 1 cites other years this way).
  const citation = (s: string) =>
    /\b\d{1,4}\s*[a-z]?\s*[,:]\s*[a-z]?\d{1,6}\s*[-–]\s*[a-z]?\d{1,6}\s*\(\s*((?:1[89]|20)\d\d)\s*\)/i.exec(s)?.[1] ??
    /\(\s*((?:1[89]|20)\d\d)\s*\)\s*\d{1,4}\s*[,:(]\s*\d/.exec(s)?.[1] ??
    /\b((?:1[89]|20)\d\d)\s*;\s*\d{1,4}(?:\s*\(\d+\))?\s*:\s*[a-z]?\d/i.exec(s)?.[1];
  const doiDate = (s: string) =>
    /\b10\.\d{4,9}\/(?:[a-z]+[.-])*((?:19|20)\d\d)\.\d/i.exec(s)?.[1] ?? /\b10\.1101\/((?:19|20)\d\d)\./.exec(s)?.[1];
  const inBands = fromBands(journalLine);
  if (inBands) return inBands;
  // 2. Then, anywhere on the page, in this order.
  for (const fn of [copyright, published, accepted, citation, doiDate, received]) {
    for (const s of text) {
      const y = yearOf(fn(s));
      if (y) return y;
    }
  }
  return undefined;
}

/** Title, authors and year read from page 1's layout; empty when nothing reads as a paper's front page. */
export function frontPageMeta(page: PageLayout): DocMeta {
  const meta: DocMeta = {};
  const found = findTitle(page);
  if (found && found.title.text.length >= 8 && words(found.title.text).length >= 2) {
    meta.title = found.title.text;
    if (found.authors) meta.authors = found.authors;
  }
  const year = findYear(page, found?.title);
  if (year) meta.year = year;
  return meta;
}
