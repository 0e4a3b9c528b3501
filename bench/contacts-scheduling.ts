/**
 * Figures for contacts and scheduling on a throwaway database: a 1000-contact batch create, contact search
 * over 10 000 contacts, and many concurrent bookings of one appointment slot.
 * Run: npm run bench:contacts
 */
import '../test/setup/env';
import { performance } from 'node:perf_hooks';
import globalSetup from '../test/setup/global-setup';
import globalTeardown from '../test/setup/global-teardown';
import { createTenant } from '../test/factories/workspace.factory';
import { startTestApp } from '../test/setup/test-app';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const phone = (n: number): string => `+4479${String(n).padStart(8, '0')}`;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

async function main(): Promise<void> {
  await globalSetup();
  const app = await startTestApp();
  try {
    const t = await createTenant(app);
    const batches: number[] = [];
    for (let run = 0; run < 10; run++) {
      const contacts = Array.from({ length: 1000 }, (_, i) => ({
        name: `Person ${run}-${i}`,
        email: `p${run}-${i}@example.com`,
        phone_number: phone(run * 1000 + i),
      }));
      const [res, ms] = await timed(() => t.http.post('/api/v1/contacts').send({ contacts }));
      if (res.status !== 201) throw new Error(`batch failed: ${res.status}`);
      batches.push(ms);
    }
    const searches: number[] = [];
    for (let i = 0; i < 50; i++) {
      const [, ms] = await timed(() => t.http.get(`/api/v1/contacts?search=person 7-${i}&per_page=20`));
      searches.push(ms);
    }
    const schedule = (await t.http.post('/api/v1/schedules').send({ name: 'Bench' })).body.data;
    const slot = {
      schedule_uuid: schedule.uuid,
      title: 'Slot',
      start_time: '2030-01-01T09:00:00Z',
      end_time: '2030-01-01T10:00:00Z',
    };
    const [results, bookingMs] = await timed(() =>
      Promise.all(Array.from({ length: 50 }, () => t.http.post('/api/v1/appointments').send(slot))),
    );
    const won = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 409).length;
    process.stdout.write(
      [
        `batch create of 1000 contacts: median ${median(batches).toFixed(0)} ms over 10 runs`,
        `contact search over 10000 contacts: median ${median(searches).toFixed(1)} ms over 50 requests`,
        `50 concurrent bookings of one slot: ${won} created, ${refused} refused with 409, ${bookingMs.toFixed(0)} ms`,
      ].join('\n') + '\n',
    );
  } finally {
    await app.close();
    await globalTeardown();
  }
}

void main();
