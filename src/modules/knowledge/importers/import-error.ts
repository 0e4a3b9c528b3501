/** A problem with the input itself: the import fails with this reason and is not retried. */
export class ImportError extends Error {}
