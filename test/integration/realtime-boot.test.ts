import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/index.ts';
import { ConfigError } from '../../src/core/index.ts';
import { startTestServer } from '../support/server.ts';

describe('a provider harness without its key fails at boot, not at the first call', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mivas-boot-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('createAppContext throws a ConfigError naming the variable', async () => {
    const boot = startTestServer({ MIVAS_HARNESS: 'openai/realtime' }, {}, dataDir);
    await expect(boot).rejects.toBeInstanceOf(ConfigError);
    await expect(boot).rejects.toThrow('OPENAI_API_KEY');
  });

  it('mivas serve exits 3 with the variable in the message', async () => {
    const err: string[] = [];
    const io = {
      stdout: { write: () => true },
      stderr: { write: (t: string) => err.push(t) },
      env: { MIVAS_DATA_DIR: dataDir, MIVAS_LOG_LEVEL: 'silent', AZURE_OPENAI_API_KEY: 'k' },
      cwd: process.cwd(),
    };
    expect(await runCli(['serve', '--harness', 'azure/realtime', '--port', '0'], io)).toBe(3);
    expect(err.join('')).toContain('MIVAS_AZURE_BASE_URL');
  });
});
