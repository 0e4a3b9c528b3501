import robotsParser from 'robots-parser';
import { BlockedAddressError, GuardPolicy, SafeResponse } from '@/common/net/address-guard';
import { outboundCategory, OutboundError, outboundRequest } from '@/common/net/outbound-http';
import { htmlToText } from './html-text';
import { ImportError } from './import-error';

export const CRAWLER_USER_AGENT = 'AgentPlatformCrawler/1.0';

/** How the crawler makes one request; the outbound client in production (redirects handled here). */
export type RequestFn = typeof outboundRequest;

export interface CrawlOptions {
  policy: GuardPolicy;
  request?: RequestFn;
  maxPages: number;
  depth: number;
  pageTimeoutMs?: number;
  maxPageBytes?: number;
  maxRedirects?: number;
}

export interface CrawledPage {
  url: string;
  title: string;
  text: string;
}

/** Same site: the same host, with or without `www.`. */
export function sameSite(a: URL, b: URL): boolean {
  const host = (u: URL) => u.hostname.toLowerCase().replace(/^www\./, '');
  return host(a) === host(b);
}

type Robots = ReturnType<typeof robotsParser>;

/**
 * Breadth-first crawl from the start URL: same site, depth-limited, robots.txt obeyed, every request (and every
 * redirect hop) through the address guard, each page with a deadline and a size cap.
 */
export class Crawler {
  private readonly robots = new Map<string, Robots | null>();
  private readonly pageTimeoutMs: number;
  private readonly maxPageBytes: number;
  private readonly maxRedirects: number;
  private readonly request: RequestFn;

  constructor(private readonly options: CrawlOptions) {
    this.pageTimeoutMs = options.pageTimeoutMs ?? 10_000;
    this.maxPageBytes = options.maxPageBytes ?? 2 * 1024 * 1024;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.request = options.request ?? outboundRequest;
  }

  async *crawl(start: string): AsyncGenerator<CrawledPage> {
    const origin = new URL(start);
    origin.hash = '';
    const seen = new Set<string>([origin.toString()]);
    const queue: { url: string; depth: number }[] = [{ url: origin.toString(), depth: 0 }];
    const read = new Set<string>();
    let pages = 0;
    let firstError: string | null = null;
    while (queue.length > 0 && pages < this.options.maxPages) {
      const { url, depth } = queue.shift()!;
      let page: { url: string; response: SafeResponse } | null;
      try {
        page = await this.fetchPage(url, origin);
      } catch (err) {
        const reason = outboundCategory(err);
        // The start page decides whether there is a crawl at all; later pages that fail are skipped.
        if (pages === 0 && url === origin.toString()) throw new ImportError(`cannot crawl ${url}: ${reason}`);
        firstError ??= reason;
        continue;
      }
      // A redirect may land on a page already read.
      if (!page || read.has(page.url)) continue;
      read.add(page.url);
      const type = String(page.response.headers['content-type'] ?? '').toLowerCase();
      const body = page.response.body.toString('utf8');
      let text: string;
      let title = '';
      let links: string[] = [];
      if (type.includes('html') || (!type && /^\s*</.test(body))) {
        const parsed = htmlToText(body, page.url);
        ({ text, title, links } = parsed);
      } else if (type.startsWith('text/plain')) {
        text = body;
      } else {
        continue;
      }
      pages++;
      yield { url: page.url, title, text };
      if (depth >= this.options.depth) continue;
      for (const link of links) {
        const target = new URL(link);
        if (!sameSite(target, origin) || seen.has(target.toString())) continue;
        seen.add(target.toString());
        queue.push({ url: target.toString(), depth: depth + 1 });
      }
    }
    if (pages === 0)
      throw new ImportError(`no page could be read from ${start}${firstError ? `: ${firstError}` : ''}`);
  }

  /** One page, following redirects by hand: each hop is re-checked by the guard, robots.txt and the site rule. */
  private async fetchPage(
    start: string,
    origin: URL,
  ): Promise<{ url: string; response: SafeResponse } | null> {
    let url = start;
    for (let hop = 0; hop <= this.maxRedirects; hop++) {
      const target = new URL(url);
      if (!sameSite(target, origin)) return null;
      if (!(await this.allowed(target))) return null;
      const response = await this.request(target, this.options.policy, {
        timeoutMs: this.pageTimeoutMs,
        maxBytes: this.maxPageBytes,
        headers: { 'user-agent': CRAWLER_USER_AGENT, accept: 'text/html, text/plain;q=0.8' },
      });
      if (response.location) {
        url = response.location;
        continue;
      }
      if (response.status !== 200) throw new OutboundError(`HTTP ${response.status}`);
      return { url: target.toString(), response };
    }
    throw new OutboundError('too many redirects');
  }

  private async allowed(url: URL): Promise<boolean> {
    const key = url.origin;
    if (!this.robots.has(key)) {
      const robotsUrl = `${key}/robots.txt`;
      let robots: Robots | null = null;
      try {
        const res = await this.request(robotsUrl, this.options.policy, {
          timeoutMs: this.pageTimeoutMs,
          maxBytes: 512 * 1024,
          headers: { 'user-agent': CRAWLER_USER_AGENT },
        });
        if (res.status === 200) robots = robotsParser(robotsUrl, res.body.toString('utf8'));
      } catch (err) {
        if (err instanceof BlockedAddressError || outboundCategory(err).startsWith('refused')) throw err;
        // No readable robots.txt: everything is allowed.
      }
      this.robots.set(key, robots);
    }
    const robots = this.robots.get(key);
    return robots ? robots.isAllowed(url.toString(), CRAWLER_USER_AGENT) !== false : true;
  }
}
