import { readFileSync } from 'node:fs';

/** The package version, for `mivas --version` and the result bundles' manifest. */
export function mivasVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}
