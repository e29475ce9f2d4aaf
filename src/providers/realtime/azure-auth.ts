import { execFile } from 'node:child_process';
import type { AzureAuthSettings } from '../../config.ts';
import { ConfigError } from '../../core/index.ts';
import type { AuthHeaders } from './ga-dialect.ts';

/** How long a token printed by MIVAS_AZURE_TOKEN_COMMAND is reused (Entra tokens live about an hour). */
export const TOKEN_REUSE_MS = 5 * 60_000;
/** How long the token command may run. */
const TOKEN_COMMAND_TIMEOUT_MS = 30_000;

/** Runs the token command through the shell and returns its trimmed stdout. */
function runTokenCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', command], { timeout: TOKEN_COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 }, (err, stdout) => {
      if (err) return reject(new Error(`MIVAS_AZURE_TOKEN_COMMAND failed: ${err.message.split('\n')[0]}`));
      const token = stdout.trim();
      if (!token) return reject(new Error('MIVAS_AZURE_TOKEN_COMMAND printed no token'));
      resolve(token);
    });
  });
}

/**
 * The upgrade headers of the Azure harness. `api-key` sends the resource key as the `api-key`
 * header; `entra` sends `Authorization: Bearer <Entra ID token>`, the token fixed
 * (AZURE_OPENAI_AD_TOKEN, as openai-python's AzureOpenAI reads it) or printed by a command before
 * a connection and reused for TOKEN_REUSE_MS (docs/providers.md). A missing credential is a
 * ConfigError at boot.
 */
export function azureAuthHeaders(auth: AzureAuthSettings, harness: string, nowMs: () => number = Date.now): AuthHeaders {
  if (auth.kind === 'api-key') {
    if (!auth.apiKey?.trim()) throw new ConfigError('PROVIDER_SETTING_MISSING', `harness ${harness} needs AZURE_OPENAI_API_KEY (or MIVAS_AZURE_AUTH=entra with AZURE_OPENAI_AD_TOKEN or MIVAS_AZURE_TOKEN_COMMAND); see docs/providers.md`);
    const headers = { 'api-key': auth.apiKey };
    return () => Promise.resolve(headers);
  }
  const command = auth.tokenCommand;
  if (command) {
    let cached: { token: string; atMs: number } | null = null;
    return async () => {
      if (!cached || nowMs() - cached.atMs >= TOKEN_REUSE_MS) cached = { token: await runTokenCommand(command), atMs: nowMs() };
      return { Authorization: `Bearer ${cached.token}` };
    };
  }
  if (!auth.token?.trim()) throw new ConfigError('PROVIDER_SETTING_MISSING', `harness ${harness} with MIVAS_AZURE_AUTH=entra needs AZURE_OPENAI_AD_TOKEN or MIVAS_AZURE_TOKEN_COMMAND; see docs/providers.md`);
  const headers = { Authorization: `Bearer ${auth.token}` };
  return () => Promise.resolve(headers);
}
