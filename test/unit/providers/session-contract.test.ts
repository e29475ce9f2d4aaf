import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../src/config.ts';
import { estimateCost, realtimeDialect, REALTIME_HARNESSES, type AgentSetup, type RealtimeHarnessName } from '../../../src/providers/index.ts';
import { emptyUsage } from '../../../src/snapshot/index.ts';

/**
 * Contract tests (issue 21): for each realtime provider, the exact first session.update the adapter
 * builds is compared with a recorded fixture whose `reference` cites the provider's own page or
 * SDK file, and every field sent must be one the reference documents. Re-check procedure:
 * docs/providers.md, "Re-checking an adapter".
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const DIR = join(ROOT, 'test/fixtures/providers');

const fixtureSchema = z.object({
  provider: z.string(),
  harness: z.enum(REALTIME_HARNESSES),
  checked: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  reference: z.object({ what: z.string().min(40), sources: z.array(z.string().min(10)).min(1), example: z.object({ type: z.literal('session.update'), session: z.record(z.string(), z.unknown()) }) }),
  documented_fields: z.array(z.string()).min(1),
  pinned: z.record(z.string(), z.unknown()),
  env: z.record(z.string(), z.string()),
  connection: z.object({ url: z.string(), auth_headers: z.array(z.string()) }),
  expected: z.object({ type: z.literal('session.update'), session: z.record(z.string(), z.unknown()) }),
});
type Fixture = z.infer<typeof fixtureSchema>;

const AGENT = JSON.parse(readFileSync(join(DIR, 'agent.json'), 'utf8')) as AgentSetup;

function fixture(provider: string): Fixture {
  return fixtureSchema.parse(JSON.parse(readFileSync(join(DIR, `${provider}.session-update.json`), 'utf8')));
}

function dialectOf(f: Fixture) {
  const parsed = loadConfig(f.env);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return realtimeDialect(f.harness as RealtimeHarnessName, parsed.config.providers);
}

/** Leaf key paths of a session object; tools are one field (their schemas pass through unchanged). */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => (k === 'tools' && !prefix ? ['tools'] : leafPaths(v, prefix ? `${prefix}.${k}` : k)));
}

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);
}

describe.each(['openai', 'azure', 'xai', 'qwen'])('%s: the first session.update against its recorded, cited reference', (provider) => {
  const f = fixture(provider);
  const dialect = dialectOf(f);
  const update = dialect.sessionUpdate(AGENT) as { type: string; session: Record<string, unknown> };

  it('is exactly the recorded example', () => {
    expect(JSON.parse(JSON.stringify(update))).toEqual(f.expected);
  });

  it('sends only fields the provider documents', () => {
    const undocumented = leafPaths(update.session).filter((p) => !f.documented_fields.some((d) => p === d || p.startsWith(`${d}.`)));
    expect(undocumented).toEqual([]);
  });

  it("uses the reference's values where the reference fixes them, and its example's key shape", () => {
    for (const [path, value] of Object.entries(f.pinned)) expect(at(update.session, path), path).toEqual(value);
    // Every field of the provider's own example that mivas also sends has the same JSON type there.
    for (const path of leafPaths(f.reference.example.session)) {
      const ours = at(update.session, path);
      if (ours !== undefined) expect(typeof ours, path).toBe(typeof at(f.reference.example.session, path));
    }
  });

  it('dials the documented endpoint with the documented auth header', async () => {
    expect(dialect.url).toBe(f.connection.url);
    expect(Object.keys(await dialect.authHeaders()).sort()).toEqual([...f.connection.auth_headers].sort());
  });

  it('offers the tools in the shape of the reference example, schemas unchanged', () => {
    const exampleTool = (f.reference.example.session.tools as unknown[] | undefined)?.[0];
    const tools = dialect.tools(AGENT) as Record<string, unknown>[];
    if (exampleTool) expect(Object.keys(tools[0] ?? {}).sort()).toEqual(Object.keys(exampleTool).sort());
    const schemas = tools.map((t) => ('function' in t ? (t.function as { parameters: unknown }).parameters : t.parameters));
    expect(schemas).toEqual(AGENT.tools.map((t) => t.parameters));
  });
});

describe('the GA fields the fixtures call documented are members of the pinned SDK types (openai@6.49)', () => {
  const dts = readFileSync(join(ROOT, 'node_modules/openai/resources/realtime/realtime.d.ts'), 'utf8');
  const members = (iface: string): Set<string> => {
    const body = new RegExp(`export interface ${iface} \\{([\\s\\S]*?)\\n\\}`).exec(dts)?.[1] ?? '';
    return new Set([...body.matchAll(/^ {4}([a-z_]+)\??:/gm)].map((m) => m[1] ?? ''));
  };

  it.each(['openai', 'azure'])('%s', (provider) => {
    const top = members('RealtimeSessionCreateRequest');
    const input = members('RealtimeAudioConfigInput');
    const output = members('RealtimeAudioConfigOutput');
    expect(top.size).toBeGreaterThan(5);
    for (const field of fixture(provider).documented_fields) {
      const [head, side, name] = field.split('.');
      if (head !== 'audio') expect(top.has(head ?? ''), field).toBe(true);
      else expect((side === 'input' ? input : output).has(name ?? ''), field).toBe(true);
    }
  });
});

describe('xAI per-minute prices (docs/providers.md, Prices)', () => {
  it('prices 2.0 and its alias at $0.08/min and 1.0 at $0.05/min', () => {
    expect(estimateCost('grok-voice-think-fast-2.0', emptyUsage(), 60_000).costUsd).toBeCloseTo(0.08, 9);
    expect(estimateCost('grok-voice-latest', emptyUsage(), 60_000).costUsd).toBeCloseTo(0.08, 9);
    expect(estimateCost('grok-voice-think-fast-1.0', emptyUsage(), 60_000).costUsd).toBeCloseTo(0.05, 9);
  });
});
