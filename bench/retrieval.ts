/**
 * Retrieval quality and speed on a throwaway database: the shipped question set (customer phrasing, follow-ups,
 * typos) over the fixture knowledge base (FAQ text, a product table, a crawled site), then the same questions
 * and search latency once the agent's index holds 100,000 passages (the rest are support notes that share the
 * shop's vocabulary).
 * Run: npm run bench:retrieval (words only), or npm run bench:retrieval -- --embeddings to add vectors from the
 * local test embeddings server (64 dimensions, exact scoring, 20,000 passages, one round): its quality figures
 * say nothing of a real model, its latency is the cost of the vector half of the fusion.
 */
import '../test/setup/env';
import { performance } from 'node:perf_hooks';
import { KnowledgeService } from '@/modules/knowledge/knowledge.service';
import globalSetup from '../test/setup/global-setup';
import globalTeardown from '../test/setup/global-teardown';
import { createAgent, synced, upload, waitFor } from '../test/factories/knowledge.factory';
import { createTenant } from '../test/factories/workspace.factory';
import { startTestApp } from '../test/setup/test-app';
import { EmbeddingsServer } from '../test/support/embeddings-server';
import { loadKnowledgeBase, mrr, QUESTIONS, ranks, recall } from '../test/support/retrieval-fixture';
import { percentile } from './stats';

const EMBEDDINGS = process.argv.includes('--embeddings');
/** Exact vector scoring is linear in the passages: the vector run measures a fifth of the index, once. */
const PASSAGES = EMBEDDINGS ? 20_000 : 100_000;
const ROUNDS = EMBEDDINGS ? 1 : 3;

/** A small seeded generator, so every run indexes the same notes. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMES = [
  'Anna',
  'Ben',
  'Chloe',
  'David',
  'Emma',
  'Farid',
  'Grace',
  'Hugo',
  'Isla',
  'Jonas',
  'Kira',
  'Liam',
];
const TOPICS = [
  'an espresso machine that leaks water',
  'a grinder making noise',
  'a late delivery',
  'the price of beans',
  'a missing milk jug in the parcel',
  'changing the delivery address',
  'an invoice for the office',
  'a wrong colour kettle',
  'coffee tasting bitter',
  'a discount code that did not work',
  'the steam wand pressure',
  'a subscription payment',
  'a scale that does not switch on',
  'beans arriving stale',
  'a tamper size question',
  'an order placed twice',
];
const ACTIONS = [
  'Agent checked the order history and',
  'Technician called back and',
  'Support replied by email and',
  'Team lead reviewed the case and',
  'Warehouse confirmed stock and',
];
const OUTCOMES = [
  'sent a replacement part.',
  'explained the settings over the phone.',
  'issued a partial credit on the account.',
  'booked a callback for next week.',
  'closed the ticket after the customer confirmed.',
  'forwarded the case to the workshop.',
  'asked for photos of the machine.',
  'updated the address before dispatch.',
];

function notesCsv(rows: number): string {
  const next = random(42);
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)];
  const lines = ['ticket,customer,note'];
  for (let i = 0; i < rows; i++)
    lines.push(
      `T-${100000 + i},${pick(NAMES)},"${pick(NAMES)} wrote about ${pick(TOPICS)}. ${pick(ACTIONS)} ${pick(OUTCOMES)}"`,
    );
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  await globalSetup();
  const embeddings = EMBEDDINGS ? await EmbeddingsServer.start() : null;
  const app = await startTestApp(embeddings ? { EMBEDDINGS_BASE_URL: embeddings.url } : {});
  const out: string[] = [embeddings ? 'words and vectors (reciprocal rank fusion)' : 'words only'];
  try {
    const t = await createTenant(app);
    const agentId = (await createAgent(app, t)).id;
    const kb = await loadKnowledgeBase(app, t, agentId);
    await kb.site.close();
    const quality = async (label: string) => {
      const r = await ranks(app, t.workspaceId, agentId, QUESTIONS);
      out.push(
        `${label}: ${QUESTIONS.length} questions, recall@1 ${recall(r, 1).toFixed(3)}, ` +
          `recall@5 ${recall(r, 5).toFixed(3)}, MRR ${mrr(r).toFixed(3)}`,
      );
    };
    await quality('fixture knowledge base');
    const fixturePassages = Number(
      (
        await app
          .get<import('typeorm').DataSource>((await import('typeorm')).DataSource)
          .query(`SELECT count(*) AS n FROM knowledge_index WHERE agent_id = $1`, [agentId])
      )[0].n,
    );

    const notes = await upload(t, 'Support notes', notesCsv(PASSAGES - fixturePassages), 'notes.csv');
    const notesId = notes.body.data.uuid as string;
    await waitFor(t, notesId, undefined, 600_000);
    await t.http.post(`/api/v1/data/${notesId}/assign`).send({ agent_uuid: agentId });
    const syncStart = performance.now();
    await t.http.post(`/api/v1/data/${notesId}/sync`);
    const done = await waitFor(t, notesId, synced, 600_000);
    out.push(
      `sync of ${done.records_count} records: ${((performance.now() - syncStart) / 1000).toFixed(1)} s ` +
        `(${done.sync_status}, progress ${JSON.stringify(done.sync_progress)})`,
    );
    await quality(`with ${PASSAGES} passages`);

    const knowledge = app.get<KnowledgeService>(KnowledgeService);
    const http: number[] = [];
    const direct: number[] = [];
    for (let round = 0; round < ROUNDS; round++)
      for (const q of QUESTIONS) {
        let start = performance.now();
        const res = await t.http.get(
          `/api/v1/agents/${agentId}/knowledge/search?q=${encodeURIComponent(q.q)}&limit=5`,
        );
        http.push(performance.now() - start);
        if (res.status !== 200) throw new Error(`search failed: ${res.status}`);
        start = performance.now();
        await knowledge.searchTurns(t.workspaceId, agentId, [...(q.before ?? []), q.q]);
        direct.push(performance.now() - start);
      }
    const line = (label: string, xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      out.push(
        `${label}: p50 ${percentile(s, 50).toFixed(1)} ms, p99 ${percentile(s, 99).toFixed(1)} ms (${s.length})`,
      );
    };
    line(`search over ${PASSAGES} passages, GET /knowledge/search over HTTPS`, http);
    line(`search over ${PASSAGES} passages, conversation ranking in process`, direct);
  } finally {
    await app.close();
    await embeddings?.close();
    await globalTeardown();
  }
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
