import { namedStatementCount, statementName } from './statement-names';

describe('statementName', () => {
  it('names a statement once it repeats, always the same name, and never a one-off', () => {
    const text = `SELECT 1 AS repeated_${Date.now()}`;
    expect(statementName(text)).toBeNull();
    expect(statementName(text)).toBeNull();
    const name = statementName(text);
    expect(name).toMatch(/^cap_[0-9a-f]{24}$/);
    expect(statementName(text)).toBe(name);
    expect(statementName(`SELECT 2 AS once_${Date.now()}`)).toBeNull();
  });

  it('leaves texts of several commands unnamed', () => {
    const several = `SELECT 1 AS several_${Date.now()}; SELECT 2`;
    for (let i = 0; i < 5; i++) expect(statementName(several)).toBeNull();
  });

  it('leaves very long texts unnamed and stops naming past its bound', () => {
    const long = `SELECT '${'x'.repeat(20_000)}'`;
    for (let i = 0; i < 5; i++) expect(statementName(long)).toBeNull();
    for (let i = 0; i < 400; i++) for (let r = 0; r < 3; r++) statementName(`SELECT ${i} AS bound_test`);
    expect(namedStatementCount()).toBe(300);
    const late = 'SELECT 1 AS late_comer';
    for (let r = 0; r < 5; r++) expect(statementName(late)).toBeNull();
  });
});
