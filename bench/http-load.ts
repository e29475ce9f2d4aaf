/**
 * HTTP load generator, run as its own process (pinned to the other core by bench/tools-bench.ts):
 * N keep-alive connections POST a tool call in a closed loop for a fixed duration and print one
 * JSON line with every latency sample. Loopback only.
 */
import { Agent, request } from 'node:http';

interface LoadSpec {
  url: string; // http://127.0.0.1:<port>/tools/<name>
  body: string;
  connections: number;
  durationMs: number;
  callIds: string[];
  auth?: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(spec.url)) throw new Error('the load generator only targets 127.0.0.1');
const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
const latencies: number[] = [];
let errors = 0;
let wrong = 0;
let counter = 0;

function once(): Promise<void> {
  const callId = spec.callIds[counter++ % spec.callIds.length] as string;
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(spec.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-mivas-call-id': callId, ...(spec.auth ? { authorization: spec.auth } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        latencies.push(performance.now() - started);
        if (res.statusCode !== 200) errors++;
        else if (!Buffer.concat(chunks).toString().startsWith('{"ok":true')) wrong++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(spec.body);
  });
}

async function worker(deadline: number): Promise<void> {
  while (performance.now() < deadline) await once();
}

const start = performance.now();
const deadline = start + spec.durationMs;
await Promise.all(Array.from({ length: spec.connections }, () => worker(deadline)));
const elapsedMs = performance.now() - start;
agent.destroy();
process.stdout.write(`${JSON.stringify({ latencies, errors, wrong, elapsedMs })}\n`);
