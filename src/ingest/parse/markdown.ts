// Markdown (wiki pages, protocols, notes): YAML front matter -> DocMeta, body -> Blocks via
// marked's lexer, with inline markup reduced to the plain text a reader sees.
import { Lexer, type Token, type Tokens } from 'marked';
import type { Block, ParsedFile } from '../../types.ts';
import { firstLine } from '../metadata/coerce.ts';
import { readFrontMatter } from './front-matter.ts';
import { decodeEntities, htmlFragmentToBlocks } from './html.ts';
import { textToBlocks } from './text.ts';

// marked recurses once per nesting level (and is super-linear on deep lists): beyond these the
// file is read as plain text rather than risking the stack or minutes of CPU.
const MAX_QUOTE_DEPTH = 40;
const MAX_INDENT = 160;
const MAX_TOKEN_DEPTH = 64;

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Nesting that marked would handle by deep recursion. */
function tooDeep(body: string): string | undefined {
  for (const line of body.split('\n')) {
    const quote = /^(?:\s*>)+/.exec(line);
    if (quote && (quote[0].match(/>/g) ?? []).length > MAX_QUOTE_DEPTH) return 'block quotes nested too deeply';
    const indent = /^[ \t]*/.exec(line)![0].replace(/\t/g, '    ').length;
    if (indent > MAX_INDENT && /^\s*([-*+]|\d+[.)])\s/.test(line)) return 'lists nested too deeply';
  }
  if (/[*_]{200,}/.test(body)) return 'runs of emphasis markers too long';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Inline tokens -> text

function inlineText(tokens: Token[] | undefined, depth = 0): string {
  if (!tokens) return '';
  const out: string[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'text': {
        const t = token as Tokens.Text;
        out.push(t.tokens && depth < MAX_TOKEN_DEPTH ? inlineText(t.tokens, depth + 1) : decodeEntities(t.text));
        break;
      }
      case 'escape':
        out.push((token as Tokens.Escape).text);
        break;
      case 'codespan':
        out.push((token as Tokens.Codespan).text);
        break;
      case 'br':
        out.push(' ');
        break;
      case 'html': {
        // Inline HTML: keep nothing of the tags (comments included), but a <br> separates words.
        const html = (token as Tokens.HTML).text;
        if (/^<br\b/i.test(html)) out.push(' ');
        break;
      }
      case 'image':
      case 'checkbox':
        break;
      case 'link':
      case 'strong':
      case 'em':
      case 'del': {
        const t = token as Tokens.Link | Tokens.Strong | Tokens.Em | Tokens.Del;
        out.push(depth < MAX_TOKEN_DEPTH ? inlineText(t.tokens, depth + 1) : t.text);
        break;
      }
      default: {
        const t = token as Tokens.Generic;
        if (Array.isArray(t.tokens) && depth < MAX_TOKEN_DEPTH) out.push(inlineText(t.tokens, depth + 1));
        else if (typeof t.text === 'string') out.push(t.text);
      }
    }
  }
  return out.join('');
}

// ---------------------------------------------------------------------------------------------
// Block tokens -> Blocks

/** An item's own text, then its nested lists flattened: "Buffers: PBS; TBS-T". */
function listItemText(item: Tokens.ListItem, depth: number): string {
  const own: string[] = [];
  const nested: string[] = [];
  for (const t of item.tokens) {
    if (t.type === 'list') {
      for (const sub of (t as Tokens.List).items) {
        const text = depth < MAX_TOKEN_DEPTH ? listItemText(sub, depth + 1) : squash(sub.text);
        if (text) nested.push(text);
      }
    } else if (t.type === 'code') {
      own.push((t as Tokens.Code).text);
    } else if (t.type !== 'space') {
      const g = t as Tokens.Generic;
      own.push(Array.isArray(g.tokens) ? inlineText(g.tokens, depth + 1) : typeof g.text === 'string' ? g.text : '');
    }
  }
  let text = squash(own.join(' '));
  if (item.task) text = `[${item.checked ? 'x' : ' '}] ${text}`;
  if (!nested.length) return text;
  if (!text) return nested.join('; ');
  return `${text}${/[:;,.]$/.test(text) ? '' : ':'} ${nested.join('; ')}`;
}

function blocksFrom(tokens: Token[], out: Block[], warnings: string[], depth: number): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'space':
      case 'hr':
      case 'def':
        break;
      case 'heading': {
        const t = token as Tokens.Heading;
        const text = squash(inlineText(t.tokens));
        if (text) out.push({ type: 'heading', level: t.depth, text });
        break;
      }
      case 'paragraph':
      case 'text': {
        const t = token as Tokens.Paragraph | Tokens.Text;
        const text = squash(t.tokens ? inlineText(t.tokens) : decodeEntities(t.text));
        if (text) out.push({ type: 'paragraph', text });
        break;
      }
      case 'list': {
        const t = token as Tokens.List;
        const items = t.items.map((i) => listItemText(i, depth + 1)).filter(Boolean);
        if (!items.length) break;
        const block: Block = { type: 'list', ordered: t.ordered, items };
        if (t.ordered && typeof t.start === 'number' && t.start !== 1) block.start = t.start;
        out.push(block);
        break;
      }
      case 'table': {
        const t = token as Tokens.Table;
        out.push({
          type: 'table',
          header: t.header.map((c) => squash(inlineText(c.tokens))),
          rows: t.rows.map((r) => r.map((c) => squash(inlineText(c.tokens)))),
        });
        break;
      }
      case 'code': {
        const text = (token as Tokens.Code).text.trimEnd();
        if (text.trim()) out.push({ type: 'code', text });
        break;
      }
      case 'blockquote': {
        const t = token as Tokens.Blockquote;
        if (depth < MAX_TOKEN_DEPTH) blocksFrom(t.tokens, out, warnings, depth + 1);
        else out.push({ type: 'paragraph', text: squash(t.text) });
        break;
      }
      case 'html': {
        const html = (token as Tokens.HTML).text.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
        if (!html.trim()) break;
        const r = htmlFragmentToBlocks(html);
        out.push(...r.blocks);
        warnings.push(...r.warnings);
        break;
      }
      default: {
        const g = token as Tokens.Generic;
        if (typeof g.text === 'string' && squash(g.text)) out.push({ type: 'paragraph', text: squash(g.text) });
      }
    }
  }
}

/** Parse a Markdown document (already decoded). */
export function parseMarkdown(text: string): ParsedFile {
  const fm = readFrontMatter(text);
  const { meta, warnings } = fm;
  const deep = tooDeep(fm.body);
  if (deep) {
    warnings.push(`${deep}; read as plain text`);
    return { format: 'markdown', blocks: textToBlocks(fm.body), meta, warnings };
  }
  let tokens: Token[];
  try {
    tokens = new Lexer({ gfm: true }).lex(fm.body);
  } catch (err) {
    warnings.push(`Markdown could not be parsed (${firstLine(err)}); read as plain text`);
    return { format: 'markdown', blocks: textToBlocks(fm.body), meta, warnings };
  }
  const blocks: Block[] = [];
  blocksFrom(tokens, blocks, warnings, 0);
  return { format: 'markdown', blocks, meta, warnings };
}
