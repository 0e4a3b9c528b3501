/**
 * An INSERT into `table` of the VALUES `rows` (each `columns` then a last `row_key` uuid) whose `row_key` is the
 * `id` of a row of `written`, a CTE of the same statement: rows that go with other rows written in that statement,
 * written exactly for those actually written. `returning` is appended as a RETURNING clause.
 */
export function insertPerRowSql(
  table: string,
  columns: string,
  rows: string,
  written: string,
  returning?: string,
): string {
  const selected = columns
    .split(',')
    .map((c) => `v.${c.trim()}`)
    .join(', ');
  return `INSERT INTO ${table} (${columns})
    SELECT ${selected} FROM (VALUES ${rows}) AS v (${columns}, row_key) JOIN ${written} w ON w.id = v.row_key${
      returning ? `\n    RETURNING ${returning}` : ''
    }`;
}
