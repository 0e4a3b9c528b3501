/** Thrown to make the filter send a stored response again, byte for byte (idempotent replays). */
export class ReplayedResponse extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {
    super('replayed response');
  }
}
