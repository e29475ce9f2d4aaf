// ESLint (flat config): type-aware promise rules, and the import direction of architecture.json.
// `npm run lint` lints src, test, bench and bin; .ci/run runs it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'eslint/config';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const ROOT = import.meta.dirname;
/** @type {{ allowed: Record<string, string[]> }} */
const { allowed } = JSON.parse(readFileSync(join(ROOT, 'architecture.json'), 'utf8'));
const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const unruled = folders.filter((f) => !(f in allowed));
if (unruled.length > 0) throw new Error(`architecture.json has no rule for src/${unruled.join(', src/')}`);

/** Folder direction: src/F imports only the folders (and src/config.ts) architecture.json allows it. */
const directionZones = folders
  .filter((f) => !allowed[f].includes('*'))
  .map((f) => ({
    target: `./src/${f}`,
    from: [...folders, 'config.ts'].filter((g) => g !== f && !allowed[f].includes(g)).map((g) => `./src/${g}`),
    message: `src/${f} ${allowed[f].length ? `may import only ${allowed[f].join(', ')}` : 'imports nothing else in src'} (architecture.json, src/${f}/README.md).`,
  }));

/** Everything outside src/F, as zone targets; unit tests in test/unit/F may reach into src/F (the module under test). */
const entries = (dir) => readdirSync(join(ROOT, dir)).map((name) => `./${dir}/${name}`);
const outside = (f) => [
  ...entries('src').filter((p) => p !== `./src/${f}`),
  ...entries('test').filter((p) => p !== './test/unit'),
  ...entries('test/unit').filter((p) => p !== `./test/unit/${f}`),
  './bench',
  './bin',
];

/** Public surface: from outside src/F, only src/F/index.ts. */
const indexZones = folders.map((f) => ({
  target: outside(f),
  from: `./src/${f}`,
  except: ['./index.ts'],
  message: `Import src/${f} from outside it through src/${f}/index.ts.`,
}));

/** A database file is opened only in src/store (docs/architecture.md, the store's row). */
const sqliteOnlyInStore = { name: 'better-sqlite3', message: 'Open databases through src/store (packDatabases, dumpDatabaseAt, CallDatabases): it is the only place a database file is opened.' };

export default defineConfig(
  // `eslint .` lints src, test, bench and bin only.
  { ignores: ['**/*', '!src/', '!src/**', '!test/', '!test/**', '!bench/', '!bench/**', '!bin/', '!bin/**'] },
  {
    files: ['**/*.ts', '**/*.js'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: { allowDefaultProject: ['bin/*.js'] }, tsconfigRootDir: ROOT },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })] },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: [...directionZones, ...indexZones] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/store/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [sqliteOnlyInStore] }] },
  },
  {
    files: ['src/scoring/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [sqliteOnlyInStore],
        patterns: [{ group: ['openai', 'openai/*', 'ws', 'fastify', 'fastify/*', '@fastify/*'], message: 'Scoring stays free of the server, providers and model SDKs (src/scoring/README.md).' }],
      }],
    },
  },
);
