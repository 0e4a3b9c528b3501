import type { Column } from '../column-types';

/** What filling a records table produced. */
export interface FillResult {
  columns: Column[];
  /** Columns that turned into json after rows held them as plain text: how many rows to quote as JSON. */
  jsonSince: Map<number, number>;
  count: number;
  total: number | null;
}

/** Reports how far an import got (rows, pages); cheap to call often. */
export type Progress = (done: number, total?: number | null) => void;
