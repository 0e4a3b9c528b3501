import { Foundation1763790000000 } from './migrations/1763790000000-Foundation';

/** Every migration in order. A new migration file is added here so it runs the same under ts-node, Jest and dist. */
export const MIGRATIONS = [Foundation1763790000000];
