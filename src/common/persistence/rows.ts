/**
 * An entity from a row of hand-written SQL (`SELECT *`): snake_case columns become the entity's camelCase
 * properties, as the snake naming strategy maps them. For hot paths where building and hydrating a statement
 * through the ORM costs more than the statement itself.
 */
export function entityOf<T extends object>(Entity: new () => T, row: Record<string, unknown>): T {
  const entity = new Entity() as Record<string, unknown>;
  for (const key in row) entity[key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = row[key];
  return entity as T;
}
