import { sameSite } from './crawler';
import { htmlToText } from './html-text';

describe('htmlToText', () => {
  it('keeps readable text and links, drops scripts, styles and markup', () => {
    const page = htmlToText(
      '<html><head><title>Shop &amp; Co</title><style>p{color:red}</style></head><body>' +
        '<h1>Welcome</h1><p>We sell <b>lamps</b>.</p><script>alert(1)</script>' +
        '<a href="/about#team">About</a><a href="mailto:x@y.z">Mail</a><a href="https://other.example/">O</a>' +
        '</body></html>',
      'https://shop.example/index.html',
    );
    expect(page.title).toBe('Shop & Co');
    expect(page.text).toBe('Welcome\nWe sell lamps.\nAboutMailO');
    expect(page.links).toEqual(['https://shop.example/about', 'https://other.example/']);
  });

  it('resolves links against <base>', () => {
    const page = htmlToText(
      '<base href="https://shop.example/docs/"><a href="intro">x</a>',
      'https://shop.example/',
    );
    expect(page.links).toEqual(['https://shop.example/docs/intro']);
  });
});

describe('sameSite', () => {
  it('treats www. and the bare host as one site, and nothing else', () => {
    expect(sameSite(new URL('https://www.shop.example/a'), new URL('http://shop.example/'))).toBe(true);
    expect(sameSite(new URL('https://blog.shop.example/'), new URL('https://shop.example/'))).toBe(false);
  });
});
