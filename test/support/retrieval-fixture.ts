import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KnowledgeService } from '@/modules/knowledge/knowledge.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { Site, startSite, synced, waitFor } from '../factories/knowledge.factory';
import type { TestApp } from '../setup/test-app';
import type { TestTenant } from '../factories/workspace.factory';

const DIR = join(__dirname, '..', 'fixtures', 'retrieval');

/** One question of the shipped set: the customer's words, earlier turns, and text the right passage holds. */
export interface Question {
  q: string;
  before?: string[];
  expect: string;
  core?: boolean;
}

export const QUESTIONS: Question[] = JSON.parse(readFileSync(join(DIR, 'questions.json'), 'utf8'));
const FAQ = readFileSync(join(DIR, 'faq.txt'), 'utf8');
const PRODUCTS: Record<string, unknown>[] = JSON.parse(readFileSync(join(DIR, 'products.json'), 'utf8'));
const PAGES: Record<string, string> = JSON.parse(readFileSync(join(DIR, 'site.json'), 'utf8'));

export interface KnowledgeBase {
  sources: { faq: string; products: string; site: string };
  site: Site;
}

/**
 * The fixture knowledge base through the real API: the FAQ pasted, the product table created and filled, the
 * site crawled from a local server; all assigned to `agentId` and synced.
 */
export async function loadKnowledgeBase(
  app: TestApp,
  t: TestTenant,
  agentId: string,
): Promise<KnowledgeBase> {
  const site = await startSite(
    Object.fromEntries(
      Object.entries(PAGES).map(([path, html]) => [path, [200, { 'content-type': 'text/html' }, html]]),
    ),
  );
  const faq = (await t.http.post('/api/v1/data/import/copypaste').send({ name: 'FAQ', data: FAQ })).body.data
    .uuid as string;
  const products = (
    await t.http.post('/api/v1/data/tables').send({
      name: 'Products',
      columns: [
        { name: 'product', type: 'text' },
        { name: 'category', type: 'text' },
        { name: 'price', type: 'number' },
        { name: 'description', type: 'text' },
        { name: 'in_stock', type: 'boolean' },
      ],
    })
  ).body.data.uuid as string;
  const added = await t.http.post(`/api/v1/data/${products}/records`).send({ records: PRODUCTS });
  if (added.status !== 201) throw new Error(`records refused: ${JSON.stringify(added.body)}`);
  const web = (
    await t.http.post('/api/v1/data/import/website').send({ name: 'Website', url: `${site.url}/`, depth: 1 })
  ).body.data.uuid as string;
  for (const id of [faq, products, web]) {
    await waitFor(t, id);
    await t.http.post(`/api/v1/data/${id}/assign`).send({ agent_uuid: agentId });
    await t.http.post(`/api/v1/data/${id}/sync`);
  }
  for (const id of [faq, products, web]) await waitFor(t, id, synced, 60_000);
  return { sources: { faq, products, site: web }, site };
}

/** Whether a search result is the passage the question wants. */
export function answers(hit: { record: { data: Record<string, unknown> } }, question: Question): boolean {
  const data = hit.record.data;
  return (
    (typeof data.content === 'string' && data.content.includes(question.expect)) ||
    JSON.stringify(data).includes(question.expect)
  );
}

/** The 1-based rank of the first passage answering each question (0: not in the top `limit`). */
export async function ranks(
  app: TestApp,
  workspaceId: WorkspaceId,
  agentId: string,
  questions: Question[],
  limit = 5,
): Promise<number[]> {
  const knowledge = app.get<KnowledgeService>(KnowledgeService);
  const out: number[] = [];
  for (const question of questions) {
    const hits = await knowledge.searchTurns(
      workspaceId,
      agentId,
      [...(question.before ?? []), question.q],
      limit,
    );
    out.push(hits.findIndex((h) => answers(h, question)) + 1);
  }
  return out;
}

export function recall(r: number[], k: number): number {
  return r.filter((x) => x > 0 && x <= k).length / r.length;
}

export function mrr(r: number[]): number {
  return r.reduce((sum, x) => sum + (x > 0 ? 1 / x : 0), 0) / r.length;
}
