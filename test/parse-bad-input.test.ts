import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { ParseError, SUPPORTED_EXTENSIONS, UnsupportedFormatError, isSupported, parseFile } from '../src/ingest/parse/index.ts';
import {
  makeBinaryJunk,
  makeDocx,
  makeCorruptPdf,
  makeEncryptedPdf,
  makeLatin1Text,
  makeNearlyUtf8Text,
  makePaperPdf,
  makeSlidesPptx,
  makeTruncatedPdf,
  makeZipBombPptx,
  utf8,
  zeroBytes,
} from './fixtures/make.ts';

/** The ParseError a parse rejects with (fails the test if it resolves or throws something else). */
async function parseError(name: string, bytes: Uint8Array, opts?: Parameters<typeof parseFile>[1]): Promise<ParseError> {
  try {
    await parseFile({ name, bytes }, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ParseError);
    return err as ParseError;
  }
  throw new Error(`${name} parsed without error`);
}

describe('unsupported files', () => {
  it('lists and recognises the supported extensions, case-insensitively', () => {
    expect([...SUPPORTED_EXTENSIONS].sort()).toEqual(['.docx', '.htm', '.html', '.markdown', '.md', '.pdf', '.pptx', '.text', '.txt']);
    expect(isSupported('papers/Smith 2021.PDF')).toBe(true);
    expect(isSupported('notes.markdown')).toBe(true);
    expect(isSupported('slides.ppt')).toBe(false);
    expect(isSupported('.md')).toBe(false);
    expect(isSupported('README')).toBe(false);
  });

  it('throws UnsupportedFormatError naming the extension', async () => {
    const err = await parseFile({ name: 'data.xlsx', bytes: utf8('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedFormatError);
    expect(err).not.toBeInstanceOf(ParseError);
    expect((err as UnsupportedFormatError).extension).toBe('.xlsx');
    expect((err as Error).message).toMatch(/unsupported file type "\.xlsx"/);
    await expect(parseFile({ name: 'Makefile', bytes: utf8('x') })).rejects.toThrow(/file has no extension/);
  });
});

describe('broken or hostile input', () => {
  it('refuses empty files of every format', async () => {
    for (const name of ['a.md', 'a.txt', 'a.pdf', 'a.pptx', 'a.docx', 'a.html']) {
      const err = await parseError(name, zeroBytes());
      expect(err.reason).toBe('empty file');
      expect(err.fileName).toBe(name);
      expect(err.message).toBe(`${name}: empty file`);
    }
  });

  it('refuses whitespace-only and text-free documents', async () => {
    expect((await parseError('blank.md', utf8(' \n\n\t\n'))).reason).toBe('no text content');
    expect((await parseError('fm.md', utf8('---\ntitle: Only metadata\n---\n'))).reason).toBe('no text content');
    expect((await parseError('nav.html', utf8('<body><nav>Home</nav><script>x()</script></body>'))).reason).toBe('no text content');
  });

  it('refuses binary content in a text file', async () => {
    expect((await parseError('image.md', makeBinaryJunk())).reason).toBe('binary content in a text file');
    const controls = utf8(`text${'\u0001\u0002\u0003\u0004\u0005\u0006'.repeat(20)}`);
    expect((await parseError('ctl.txt', controls)).reason).toBe('binary content in a text file');
  });

  it('refuses text in another encoding, but tolerates a stray bad byte', async () => {
    expect((await parseError('latin1.txt', makeLatin1Text())).reason).toMatch(/^invalid UTF-8/);
    const r = await parseFile({ name: 'near.txt', bytes: makeNearlyUtf8Text() });
    expect(r.warnings).toEqual(['1 invalid UTF-8 byte sequence replaced with U+FFFD']);
    expect(JSON.stringify(r.blocks)).toContain('Then wash twice with PBS.');
  });

  it('decodes UTF-16 with a byte-order mark and strips a UTF-8 BOM', async () => {
    const text = '# Título\n\nIncubate at 37 °C.\n';
    const u16 = new Uint8Array(2 + text.length * 2);
    u16.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) u16[2 + i * 2] = text.charCodeAt(i);
    const r = await parseFile({ name: 'w.md', bytes: u16 });
    expect(r.blocks[0]).toEqual({ type: 'heading', level: 1, text: 'Título' });
    const bom = await parseFile({ name: 'b.md', bytes: utf8(`\uFEFF---\ntitle: With BOM\n---\nBody.\n`) });
    expect(bom.meta.title).toBe('With BOM');
  });

  it('refuses files over the size limit before parsing them', async () => {
    const big = new Uint8Array(2 * 1024 * 1024).fill(0x61);
    expect((await parseError('big.txt', big, { maxBytes: 1024 * 1024 })).reason).toBe('file is 2 MB, over the limit of 1 MB');
  });

  it('reports truncated, corrupt and fake PDFs as invalid', async () => {
    const invalid = 'not a valid PDF (truncated or corrupt)';
    expect((await parseError('t.pdf', await makeTruncatedPdf())).reason).toBe(invalid);
    expect((await parseError('t80.pdf', await makeTruncatedPdf(0.8))).reason).toBe(invalid);
    const corrupt = await parseError('c.pdf', makeCorruptPdf());
    expect(corrupt.reason).toBe(invalid);
    expect(corrupt.cause).toBeInstanceOf(Error);
    expect((await parseError('fake.pdf', utf8('Just some text saved as .pdf'))).reason).toBe('not a valid PDF (no PDF header)');
  });

  it('reports encrypted PDFs as encrypted', async () => {
    const err = await parseError('locked.pdf', makeEncryptedPdf());
    expect(err.reason).toMatch(/^encrypted PDF/);
    expect((err.cause as Error).name).toBe('PasswordException');
  });

  it('refuses zip bombs by their declared size, before inflating', async () => {
    const t0 = Date.now();
    const err = await parseError('bomb.pptx', await makeZipBombPptx(), { maxUncompressedBytes: 1024 * 1024 });
    expect(err.reason).toBe('archive expands beyond 1 MB (zip bomb?)');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('refuses zip bombs that lie about their size, while inflating', async () => {
    const bytes = await makeZipBombPptx({ lie: true });
    const err = await parseError('liar.pptx', bytes, { maxUncompressedBytes: 1024 * 1024 });
    expect(err.reason).toBe('archive expands beyond 1 MB (zip bomb?)');
    // The same file passes the declared-size check and is only caught by counting.
    const honest = await makeZipBombPptx({ size: 64 * 1024 });
    await expect(parseFile({ name: 'small.pptx', bytes: honest }, { maxUncompressedBytes: 1024 * 1024 })).rejects.toThrow(
      'no text content',
    );
  });

  it('refuses Office XML nested far deeper than any real document, quickly', async () => {
    const zip = await JSZip.loadAsync(await makeSlidesPptx());
    const slide = await zip.file('ppt/slides/slide1.xml')!.async('string');
    const deep = `<p:sp><p:txBody>${'<p:grpSp>'.repeat(50_000)}<a:p><a:r><a:t>deep</a:t></a:r></a:p>${'</p:grpSp>'.repeat(50_000)}</p:txBody></p:sp>`;
    zip.file('ppt/slides/slide1.xml', slide.replace('</p:spTree>', `${deep}</p:spTree>`));
    const t0 = Date.now();
    const err = await parseError('deep.pptx', await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }));
    expect(err.reason).toBe('ppt/slides/slide1.xml is nested 50008 levels deep (corrupt or crafted file)');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('turns randomly damaged files of every format into results or ParseErrors, never anything else', async () => {
    const seeds: [string, Uint8Array][] = [
      ['f.pdf', await makePaperPdf()],
      ['f.pptx', await makeSlidesPptx()],
      ['f.docx', await makeDocx()],
      ['f.md', utf8('---\ntitle: x\n---\n# H\n\n- a\n- b\n\n|a|b|\n|-|-|\n|1|2|\n')],
      ['f.html', utf8('<html><head><title>t</title></head><body><main><h1>x</h1><p>y</p></main></body></html>')],
    ];
    let x = 7;
    const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff);
    const outcomes = new Set<string>();
    for (const [name, base] of seeds) {
      for (let k = 0; k < 25; k++) {
        const bytes = base.slice();
        for (let f = 1 + (rnd() % 12); f > 0; f--) bytes[rnd() % bytes.length] = rnd() & 0xff;
        const input = k % 4 === 0 ? bytes.slice(0, rnd() % bytes.length) : bytes;
        try {
          await parseFile({ name, bytes: input });
          outcomes.add('ok');
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
          outcomes.add('error');
        }
      }
    }
    expect(outcomes).toEqual(new Set(['ok', 'error']));
  });

  it('gives up after the timeout', async () => {
    const bytes = await makePaperPdf();
    expect((await parseError('slow.pdf', bytes, { timeoutMs: 1 })).reason).toBe('timed out after 1 ms');
  });

  it('wraps library failures in a ParseError that keeps the cause', async () => {
    const zip = new JSZip();
    zip.file('[Content_Types].xml', '<Types/>');
    zip.file('word/document.xml', '<w:document><w:body><w:p>unclosed');
    const err = await parseError('broken.docx', await zip.generateAsync({ type: 'uint8array' }));
    expect(err.reason).toMatch(/^not a valid DOCX \(/);
    expect(err.cause).toBeInstanceOf(Error);
  });
});
