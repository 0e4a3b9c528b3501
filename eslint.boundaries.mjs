import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (docs/architecture.md, "Layers and ports"): a module's repositories (`*.repository.ts`,
 * `*.repositories.ts`) and SQL helper files (`*-sql.ts`, `*.sql.ts`) are its own. Other modules use its services or
 * what its `public.ts` offers (parts of their statements among them); code outside the modules (common, providers,
 * cli, database, the bootstrap) imports neither. `no-restricted-imports` judges a file alone and a later block's
 * options replace an earlier one's, so each module folder has its own block, allowing its own files.
 */

const MODULES = readdirSync(new URL('./src/modules', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** A repository or SQL helper file as the last segment of an import path (`.ts` or not). */
const PRIVATE_FILE = String.raw`[^/]+(?:\.repository|\.repositories|[-.]sql)(?:\.ts)?$`;

const MESSAGE =
  "Another module's repositories and SQL helpers are its own: use its service or its public.ts (docs/architecture.md, Layers and ports).";

const literal = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The restricted import paths for code in the module `own` (null: outside every module): another module's private
 * files by alias, or by a relative path climbing into that module's folder. `allow`: exact paths let through.
 */
export function boundaryPatterns(own, allow = []) {
  const others = MODULES.filter((m) => m !== own).join('|');
  const except = allow.map((path) => `(?!${literal(path)}$)`).join('');
  const climb = own ? String.raw`(?:\.\./)+` : String.raw`(?:\./|(?:\.\./)+)`;
  return [
    { regex: `^${except}@/modules/(?:${others})/(?:[^/]+/)*${PRIVATE_FILE}`, message: MESSAGE },
    { regex: `^${except}${climb}(?:modules/)?(?:${others})/(?:[^/]+/)*${PRIVATE_FILE}`, message: MESSAGE },
  ];
}

const restrict = (files, own, allow) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: boundaryPatterns(own, allow) }] },
});

/** The blocks eslint.config.mjs places after its own. */
export const moduleBoundaries = [
  restrict(['src/**/*.ts'], null),
  ...MODULES.map((m) => restrict([`src/modules/${m}/**/*.ts`], m)),
];

/** These blocks alone, with the TypeScript parser (no type information): for checking the rule on fixtures. */
export default [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  ...moduleBoundaries,
];
