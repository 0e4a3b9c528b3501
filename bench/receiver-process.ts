import { WebhookReceiver } from '../test/support/webhook-receiver';

/**
 * The customer's webhook endpoint for `bench:flows`, in a process of its own (forked by the bench) so its work is
 * not counted as the API's: sends its URL for `/bench`; answers `report` with the requests received there and how
 * many distinct `webhook-id`s they carried; `count` with the requests received so far (`{ count }`, no scan); exits on
 * `stop`.
 */
async function main(): Promise<void> {
  const receiver = await WebhookReceiver.start();
  process.on('message', (m: string) => {
    if (m === 'report') {
      const hits = receiver.at('/bench');
      const ids = new Set(hits.map((h) => h.headers['webhook-id']));
      process.send?.({ received: hits.length, distinct: ids.size });
    } else if (m === 'count') {
      process.send?.({ count: receiver.received.length });
    } else if (m === 'stop') void receiver.close().then(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0)); // the bench is gone
  process.send?.({ url: receiver.url('/bench') });
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
