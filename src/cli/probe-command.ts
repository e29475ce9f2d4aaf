import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { decodeServerFrame } from '../chirp/index.ts';
import { EXIT, exitCodeOf } from '../core/index.ts';
import { configFromFlags } from './config-flags.ts';
import { failWith, type Command } from './io.ts';

/** What the probe saw. */
interface ProbeResult {
  url: string;
  tls: boolean;
  upgrade_ms: number | null;
  round_trip_ms: number | null;
  status: number | null;
  probe_ok: unknown;
  /** Why the frame is not a valid probe.ok (the codec's reason), or null when it is. */
  frame_problem: string | null;
  close_code: number | null;
  error: string | null;
}

/** The URL as it may be printed: a user and password in it are replaced by `***` (they still authenticate). */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '***';
    parsed.password = parsed.password ? '***' : '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function probe(url: string, headers: Record<string, string>, timeoutMs: number): Promise<ProbeResult> {
  const started = performance.now();
  const result: ProbeResult = { url: withoutCredentials(url), tls: url.startsWith('wss:'), upgrade_ms: null, round_trip_ms: null, status: null, probe_ok: null, frame_problem: 'no_frame', close_code: null, error: null };
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { ...headers, 'X-Mivas-Probe': '1' } });
    const timer = setTimeout(() => {
      result.error = 'timed out';
      ws.terminate();
    }, timeoutMs);
    ws.on('upgrade', (res) => {
      result.status = res.statusCode ?? null;
      result.upgrade_ms = Math.round(performance.now() - started);
    });
    ws.on('unexpected-response', (_req, res) => {
      result.status = res.statusCode ?? null;
      result.error = `upgrade refused with HTTP ${res.statusCode}`;
      res.resume();
      ws.terminate();
    });
    ws.on('message', (data) => {
      result.round_trip_ms = Math.round(performance.now() - started);
      const text = String(data);
      const decoded = decodeServerFrame(text);
      result.frame_problem = !decoded.ok ? decoded.reason : decoded.frame.type === 'probe.ok' ? null : `unexpected_type:${decoded.frame.type}`;
      try {
        result.probe_ok = JSON.parse(text);
      } catch {
        result.probe_ok = text;
      }
    });
    ws.on('error', (err) => {
      result.error ??= err.message;
    });
    ws.on('close', (code) => {
      clearTimeout(timer);
      result.close_code = code;
      resolve(result);
    });
  });
}

/** One line saying why a probe failed; a 401 names the credentials. */
function failureMessage(result: ProbeResult): string {
  if (result.status === 401) return `HTTP 401 Unauthorized from ${result.url}: wrong or missing credentials (--user/--pass)`;
  if (result.status !== null && result.status !== 101) return `HTTP ${result.status} from ${result.url} (503 means draining or at capacity)`;
  if (result.error) return `${result.error} (${result.url})`;
  if (result.frame_problem) return `no valid probe.ok frame (${result.frame_problem}) (${result.url})`;
  return `close code ${result.close_code ?? 'none'} instead of 1000 (${result.url})`;
}

/** `mivas probe URL`: the 101 health probe (architecture.md §3), with TLS, upgrade and round-trip time. */
export const probeCommand: Command = async (argv, io) => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { user: { type: 'string' }, pass: { type: 'string' }, local: { type: 'boolean' }, 'timeout-s': { type: 'string', default: '10' } },
    allowPositionals: true,
  });
  // --local probes this container's own server with its own credentials (the Docker HEALTHCHECK).
  const local = values.local ? configFromFlags(io, {}) : null;
  if (values.local && !local) return exitCodeOf('CONFIG_INVALID');
  const url = positionals[0] ?? (local ? `ws://127.0.0.1:${local.port}/probe` : undefined);
  if (!url) return failWith(io, 'USAGE', 'usage: mivas probe ws[s]://HOST[:PORT]/probe [--user U --pass P] | mivas probe --local');
  const user = values.user ?? local?.auth?.user;
  const pass = values.pass ?? local?.auth?.pass;
  const headers: Record<string, string> = {};
  if (user && pass) headers.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const result = await probe(url, headers, Number(values['timeout-s']) * 1000);
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const ok = result.status === 101 && result.frame_problem === null && result.close_code === 1000;
  if (ok) io.stderr.write(`probe ok: ${withoutCredentials(url)} answered 101 and probe.ok in ${result.round_trip_ms} ms${result.tls ? ' over TLS' : ''}\n`);
  else io.stderr.write(`probe FAILED: ${failureMessage(result)}\n`);
  return ok ? EXIT.ok : EXIT.checkFailed;
};
