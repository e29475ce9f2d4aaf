import { registerHooks } from 'node:module';

/** True for `drizzle-orm` and its subpaths (`drizzle-orm/better-sqlite3`, …). */
export function isDrizzleSpecifier(specifier: string): boolean {
  return specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/');
}

/**
 * Resolves every `import` of drizzle-orm to its CommonJS build, for this thread. Node 24's ESM
 * loader hands the package's whole 179 KB package.json to JavaScript again for each of the
 * hundreds of files drizzle's ESM build imports: loading `drizzle-orm/better-sqlite3` cost 0.8 s of
 * CPU and left 215 MB of garbage, which the server's large initial old space kept for good. The
 * CommonJS build is the same code (the package ships both): 0.1 s and 21 MB (docs/performance.md,
 * "Boot"). Every import in the thread goes through the hook, so no thread holds both builds.
 * Called first by the CLI entry (`bin/mivas.js`) and by the results UI's worker.
 */
export function loadDrizzleAsCommonJs(): void {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (!isDrizzleSpecifier(specifier)) return nextResolve(specifier, context);
      return nextResolve(specifier, { ...context, conditions: (context.conditions ?? []).map((c) => (c === 'import' ? 'require' : c)) });
    },
  });
}
