import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configKeys, loadConfig } from '../../src/config.ts';

const ROOT = join(import.meta.dirname, '../..');

function problemsOf(env: Record<string, string>): readonly string[] {
  const result = loadConfig(env);
  if (result.ok) throw new Error('expected a configuration error');
  return result.problems;
}

/** The variable a problem line names (the text before the first colon). */
const named = (problems: readonly string[]): string[] => problems.map((p) => p.split(':')[0] ?? '').sort();

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const result = loadConfig({});
    if (!result.ok) throw new Error(result.problems.join('\n'));
    const c = result.config;
    expect([c.port, c.pack, c.harness, c.dataDir, c.maxCalls, c.auth, c.host, c.fast]).toEqual([8765, 'control-industry', 'scripted', './data', 100, null, '127.0.0.1', false]);
    expect(c.snapshots).toEqual({ kind: 'directory', dir: './data/snapshots' });
    expect([c.nudgeRetryDelayMs, c.nudgeMaxAttempts, c.endCallMaxWaitMs, c.pingIntervalMs]).toEqual([3_000, 5, 20_000, 20_000]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reports every bad variable with its reason and value', () => {
    const problems = problemsOf({ MIVAS_PORT: 'eighty', MIVAS_MAX_CALLS: '0', MIVAS_LOG_LEVEL: 'loud', MIVAS_FAST: 'maybe', MIVAS_PACK: 'Bad Pack', MIVAS_NUDGE_RETRY_DELAY_S: '-3' });
    expect(named(problems)).toEqual(['MIVAS_FAST', 'MIVAS_LOG_LEVEL', 'MIVAS_MAX_CALLS', 'MIVAS_NUDGE_RETRY_DELAY_S', 'MIVAS_PACK', 'MIVAS_PORT']);
    expect(problems.find((p) => p.startsWith('MIVAS_PORT'))).toContain('"eighty"');
    expect(problems.find((p) => p.startsWith('MIVAS_LOG_LEVEL'))).toContain('"loud"');
  });

  it.each([
    [{ CHIRP_USER: 'bluejay' }],
    [{ CHIRP_PASS: 'secret' }],
    [{ CHIRP_USER: 'bluejay', CHIRP_PASS: '  ' }],
  ])('treats exactly one of CHIRP_USER / CHIRP_PASS as an error: %j', (env) => {
    expect(problemsOf(env).some((p) => p.includes('CHIRP_USER') && p.includes('CHIRP_PASS'))).toBe(true);
  });

  it('reports the credential pair together with other bad variables', () => {
    const problems = problemsOf({ CHIRP_USER: 'bluejay', MIVAS_PORT: '70000' });
    expect(problems.some((p) => p.startsWith('MIVAS_PORT'))).toBe(true);
    expect(problems.some((p) => p.includes('CHIRP_USER') && p.includes('CHIRP_PASS'))).toBe(true);
  });

  it('turns auth on with both credentials and binds publicly by default', () => {
    const result = loadConfig({ CHIRP_USER: 'bluejay', CHIRP_PASS: 'secret' });
    expect(result.ok && [result.config.auth, result.config.host]).toEqual([{ user: 'bluejay', pass: 'secret' }, '0.0.0.0']);
  });

  it('refuses a public bind with auth off unless explicitly allowed', () => {
    expect(problemsOf({ MIVAS_HOST: '0.0.0.0' }).some((p) => p.startsWith('MIVAS_HOST'))).toBe(true);
    const allowed = loadConfig({ MIVAS_HOST: '0.0.0.0', MIVAS_ALLOW_PUBLIC_NOAUTH: '1' });
    expect(allowed.ok && allowed.config.host).toBe('0.0.0.0');
  });

  it('selects the S3 sink when a bucket is set, trimming the prefix', () => {
    const result = loadConfig({ MIVAS_SNAPSHOT_BUCKET: 'b', MIVAS_SNAPSHOT_PREFIX: '/runs/2026/', MIVAS_S3_ENDPOINT: 'http://127.0.0.1:4568', MIVAS_S3_FORCE_PATH_STYLE: 'true', MIVAS_S3_TIMEOUT_S: '4' });
    expect(result.ok && result.config.snapshots).toEqual({ kind: 's3', bucket: 'b', prefix: 'runs/2026', endpoint: 'http://127.0.0.1:4568', region: 'us-east-1', forcePathStyle: true, requestTimeoutMs: 4_000, maxAttempts: 3 });
  });

  it('lets overrides (CLI flags) win over the environment', () => {
    const result = loadConfig({ MIVAS_PACK: 'healthcare', MIVAS_HARNESS: 'noop' }, { MIVAS_PACK: 'control-industry' });
    expect(result.ok && [result.config.pack, result.config.harness]).toEqual(['control-industry', 'noop']);
  });
});

describe('.env.example', () => {
  it('lists exactly the variables the schema reads, each once', () => {
    const keys = readFileSync(join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((k): k is string => k !== undefined);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual(configKeys().sort());
  });
});
