// pptxgenjs and docx stamp "now" into docProps/core.xml and into every zip entry's header.
// Rewriting both to one date makes a generated file change only when its content does.
import JSZip from 'jszip';

export async function withFixedDates(input: Uint8Array, isoDate: string): Promise<Buffer> {
  const source = await JSZip.loadAsync(input);
  const out = new JSZip();
  const fixed = new Date(isoDate);
  const stamp = isoDate.replace(/\.\d{3}Z$/, 'Z');
  for (const [name, entry] of Object.entries(source.files)) {
    if (entry.dir) continue;
    if (name === 'docProps/core.xml') {
      const xml = (await entry.async('string'))
        .replace(/(<dcterms:created[^>]*>)[^<]*(<\/dcterms:created>)/, `$1${stamp}$2`)
        .replace(/(<dcterms:modified[^>]*>)[^<]*(<\/dcterms:modified>)/, `$1${stamp}$2`);
      out.file(name, xml, { date: fixed, createFolders: false });
    } else {
      out.file(name, await entry.async('uint8array'), { date: fixed, createFolders: false });
    }
  }
  return out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}
