import { describe, expect, it } from 'vitest';
import { parseFile } from '../src/ingest/parse/index.ts';
import { estimateHtmlDepth, parseHtml } from '../src/ingest/parse/html.ts';
import type { Block } from '../src/types.ts';
import { utf8 } from './fixtures/make.ts';

const ARTICLE_PAGE = `<!doctype html>
<html lang="en-GB">
<head>
  <title>Mitochondrial fission under hypoxia | Lab Wiki</title>
  <meta name="citation_title" content="Hypoxia remodels mitochondrial fission">
  <meta name="citation_author" content="Smith, Jane">
  <meta name="citation_author" content="Patel, Rahul">
  <meta name="citation_author" content="Li Wei">
  <meta name="citation_doi" content="doi:10.1234/jlm.2021.0042">
  <meta name="citation_publication_date" content="2021/03/15">
  <meta name="citation_journal_title" content="Journal of Laboratory Methods">
  <meta property="og:title" content="OG title should lose">
  <link rel="canonical" href="https://wiki.example.org/papers/fission">
  <style>.x { color: red }</style>
  <script>window.tracking = "SCRIPT TEXT";</script>
</head>
<body class="page has-sidebar">
  <div class="cookie-banner">We use cookies. Accept all cookies?</div>
  <header class="site-header"><a href="/">Lab Wiki home</a><span>SITE HEADER TEXT</span></header>
  <nav><ul><li><a href="/">Home</a></li><li><a href="/protocols">NAV PROTOCOLS LINK</a></li></ul></nav>
  <ol class="breadcrumbs"><li>Wiki</li><li>BREADCRUMB PAPERS</li></ol>
  <div id="main-menu">MENU ENTRY</div>
  <main>
    <article>
      <header><h1>Hypoxia remodels mitochondrial fission</h1><p class="byline">Jane Smith, 2021</p></header>
      <p>Mitochondria divide more often after 24 h at 1&nbsp;% O<sub>2</sub> &amp; fuse as usual.</p>
      <h2>Methods</h2>
      <ul>
        <li>Cell culture
          <ul><li>HeLa, passage &lt; 20</li><li>DMEM + 10% FBS</li></ul>
        </li>
        <li>Imaging</li>
      </ul>
      <ol start="2"><li>Seed cells</li><li>Transfer to chamber</li></ol>
      <h3>Reagents</h3>
      <table>
        <caption>Table 1. Reagents</caption>
        <thead><tr><th>Reagent</th><th>Catalogue</th></tr></thead>
        <tbody><tr><td>MitoTracker</td><td>M7512</td></tr><tr><td>Oligomycin</td><td>O4876</td></tr></tbody>
      </table>
      <pre>quantify --input stack.tif
  --threshold 0.4</pre>
      <div>Loose text in a div<br>on two lines</div>
      <p hidden>HIDDEN PARAGRAPH</p>
      <p style="display: none">INVISIBLE PARAGRAPH</p>
      <aside>ASIDE TEXT</aside>
      <form><label>FORM LABEL</label></form>
      <footer>ARTICLE FOOTER share this</footer>
    </article>
  </main>
  <aside class="sidebar">SIDEBAR TEXT</aside>
  <div role="contentinfo">CONTENTINFO TEXT</div>
  <footer>SITE FOOTER TEXT</footer>
  <noscript>NOSCRIPT TEXT</noscript>
</body>
</html>`;

const text = (blocks: Block[]) => JSON.stringify(blocks);

describe('HTML pages', () => {
  const parsed = parseHtml(ARTICLE_PAGE);

  it('drops navigation, chrome, scripts and hidden elements', () => {
    for (const junk of [
      'SCRIPT TEXT',
      'color: red',
      'cookies',
      'SITE HEADER TEXT',
      'NAV PROTOCOLS LINK',
      'BREADCRUMB PAPERS',
      'MENU ENTRY',
      'HIDDEN PARAGRAPH',
      'INVISIBLE PARAGRAPH',
      'ASIDE TEXT',
      'FORM LABEL',
      'ARTICLE FOOTER',
      'SIDEBAR TEXT',
      'CONTENTINFO TEXT',
      'SITE FOOTER TEXT',
      'NOSCRIPT TEXT',
    ]) {
      expect(text(parsed.blocks)).not.toContain(junk);
    }
  });

  it('keeps the article, in order, as blocks', () => {
    expect(parsed.blocks).toEqual([
      { type: 'heading', level: 1, text: 'Hypoxia remodels mitochondrial fission' },
      { type: 'paragraph', text: 'Jane Smith, 2021' },
      { type: 'paragraph', text: 'Mitochondria divide more often after 24 h at 1 % O2 & fuse as usual.' },
      { type: 'heading', level: 2, text: 'Methods' },
      { type: 'list', ordered: false, items: ['Cell culture: HeLa, passage < 20; DMEM + 10% FBS', 'Imaging'] },
      { type: 'list', ordered: true, start: 2, items: ['Seed cells', 'Transfer to chamber'] },
      { type: 'heading', level: 3, text: 'Reagents' },
      {
        type: 'table',
        header: ['Reagent', 'Catalogue'],
        rows: [
          ['MitoTracker', 'M7512'],
          ['Oligomycin', 'O4876'],
        ],
        caption: 'Table 1. Reagents',
      },
      { type: 'code', text: 'quantify --input stack.tif\n  --threshold 0.4' },
      { type: 'paragraph', text: 'Loose text in a div on two lines' },
    ]);
  });

  it('reads citation metadata from the head', () => {
    expect(parsed.meta).toEqual({
      title: 'Hypoxia remodels mitochondrial fission',
      authors: ['Jane Smith', 'Rahul Patel', 'Li Wei'],
      doi: '10.1234/jlm.2021.0042',
      year: 2021,
      journal: 'Journal of Laboratory Methods',
      url: 'https://wiki.example.org/papers/fission',
      language: 'en-GB',
    });
  });

  it('falls back to Dublin Core, og:title and <title>', () => {
    const dc = parseHtml(`<html><head><title>T</title><meta name="DC.title" content="DC Title">
      <meta name="DC.creator" content="Okafor, Ada"><meta name="DC.creator" content="Min Lee">
      <meta name="DC.date" content="2019-07-01"><meta name="DC.identifier" content="https://doi.org/10.5555/dc.1">
      </head><body><p>x</p></body></html>`);
    expect(dc.meta).toMatchObject({ title: 'DC Title', authors: ['Ada Okafor', 'Min Lee'], year: 2019, doi: '10.5555/dc.1' });
    expect(parseHtml('<head><meta property="og:title" content="OG"><title>T</title></head><p>x</p>').meta.title).toBe('OG');
    expect(parseHtml('<head><title> Plain  title </title></head><p>x</p>').meta.title).toBe('Plain title');
  });

  it('reads subject keywords from keywords, citation_keywords and DC.subject', () => {
    const kw = parseHtml(`<head><meta name="keywords" content="mitochondria, hypoxia">
      <meta name="citation_keywords" content="Drp1"><meta name="DC.subject" content="hypoxia"></head><p>x</p>`);
    expect(kw.meta.keywords).toEqual(['Drp1', 'mitochondria', 'hypoxia']);
  });

  it('uses the body when there is no main or article, still without the nav', () => {
    const r = parseHtml('<body><nav>NAV</nav><h2>Freezer rules</h2><p>Label every box.</p><footer>FOOT</footer></body>');
    expect(r.blocks).toEqual([
      { type: 'heading', level: 2, text: 'Freezer rules' },
      { type: 'paragraph', text: 'Label every box.' },
    ]);
  });

  it('does not drop a wrapper whose class merely mentions a sidebar', () => {
    const body = '<p>Real content paragraph that is long enough to matter for the heuristics here.</p>'.repeat(10);
    const r = parseHtml(`<body><div class="layout-with-sidebar">${body}<div class="sidebar">SIDE</div></div></body>`);
    expect(r.blocks.filter((b) => b.type === 'paragraph')).toHaveLength(10);
    expect(text(r.blocks)).not.toContain('SIDE');
  });

  it('reads layout tables as containers, not data tables', () => {
    const r = parseHtml('<table><tr><td><h2>Title</h2><p>Para one.</p></td></tr></table>');
    expect(r.blocks).toEqual([
      { type: 'heading', level: 2, text: 'Title' },
      { type: 'paragraph', text: 'Para one.' },
    ]);
  });
});

describe('HTML that could hurt the parser', () => {
  it('estimates nesting depth linearly, ignoring void and optional-end elements', () => {
    expect(estimateHtmlDepth('<div><p>a<p>b<br><img src=x><div><span>x</span></div></div>')).toBe(3);
    expect(estimateHtmlDepth('<script>if (a<b && c<d) {}</script><div></div>')).toBe(1);
    expect(estimateHtmlDepth('<!-- <div><div> --><b>x</b>')).toBe(1);
  });

  it('keeps structure for ordinary nesting', () => {
    const html = `${'<div>'.repeat(300)}<h2>Deep heading</h2><p>Deep text.</p>${'</div>'.repeat(300)}`;
    expect(parseHtml(html).blocks).toEqual([
      { type: 'heading', level: 2, text: 'Deep heading' },
      { type: 'paragraph', text: 'Deep text.' },
    ]);
  });

  it('reads absurdly deep or unclosed nesting as text, quickly, without overflowing the stack', async () => {
    const deep = `<html><body>${'<div>'.repeat(100_000)}deep text${'</div>'.repeat(100_000)}<p>after &amp; done</p></body></html>`;
    const unclosed = `<body>${'<b><i>'.repeat(50_000)}x<p>still here</p>`;
    const t0 = Date.now();
    const a = await parseFile({ name: 'deep.html', bytes: utf8(deep) });
    const b = await parseFile({ name: 'unclosed.htm', bytes: utf8(unclosed) });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(a.warnings[0]).toMatch(/nested 100000 levels deep/);
    expect(text(a.blocks)).toContain('deep text');
    expect(text(a.blocks)).toContain('after & done');
    expect(text(b.blocks)).toContain('still here');
  });

  it('goes through parseFile as html', async () => {
    const r = await parseFile({ name: 'page.HTM', bytes: utf8(ARTICLE_PAGE) });
    expect(r.format).toBe('html');
    expect(r.meta.doi).toBe('10.1234/jlm.2021.0042');
  });
});
