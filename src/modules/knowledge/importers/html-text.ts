import { Parser } from 'htmlparser2';

const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'head',
  'iframe',
  'object',
  'canvas',
]);
const BLOCK = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'table',
  'section',
  'article',
  'header',
  'footer',
  'blockquote',
  'pre',
  'dd',
  'dt',
  'hr',
  'main',
  'nav',
  'aside',
  'form',
  'title',
]);

export interface HtmlPage {
  title: string;
  text: string;
  links: string[];
}

/** Readable text and links of an HTML page: scripts, styles and markup dropped, blocks on their own lines. */
export function htmlToText(html: string, baseUrl: string): HtmlPage {
  let skipping = 0;
  let text = '';
  let title = '';
  let inTitle = false;
  let base = baseUrl;
  const links: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'title') inTitle = true;
        if (name === 'base' && attrs.href) {
          try {
            base = new URL(attrs.href, baseUrl).toString();
          } catch {
            // an unusable base keeps the page address
          }
        }
        if (SKIP.has(name)) skipping++;
        if (BLOCK.has(name)) text += '\n';
        if (name === 'a' && attrs.href) links.push(attrs.href);
      },
      ontext(data) {
        if (inTitle) title += data;
        if (skipping === 0) text += data;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIP.has(name)) skipping = Math.max(0, skipping - 1);
        if (BLOCK.has(name)) text += '\n';
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  const resolved: string[] = [];
  for (const href of links) {
    try {
      const url = new URL(href, base);
      url.hash = '';
      if (url.protocol === 'http:' || url.protocol === 'https:') resolved.push(url.toString());
    } catch {
      // a malformed link is skipped
    }
  }
  const clean = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l.length > 0)
    .join('\n');
  return { title: title.trim(), text: clean, links: resolved };
}
