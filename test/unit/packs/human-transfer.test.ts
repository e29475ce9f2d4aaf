import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  blueprintSchema,
  buildCatalog,
  defineTool,
  ESCALATION_ROW_ID,
  HUMAN_TRANSFER,
  loadPack,
  ok,
  pinSubject,
  readPackDefinition,
  toolsOfAgent,
  writeToolsJson,
  type Blueprint,
  type Pack,
} from '../../../src/packs/index.ts';
import { CallDatabases, dumpDatabase, ensureTemplate, type CallDatabase } from '../../../src/store/index.ts';
import { executeTool, type ToolExecution } from '../../../src/tools/index.ts';
import { copyControlPack } from '../../support/scoring-packs.ts';

/** The runtime's human transfer (src/packs/human-transfer.ts), on a copy of control-industry that opts in. */

const REASONS = {
  caller_request: { when: 'the caller asks for a person', script: 'I am putting you through to the repair desk now.' },
  unsafe_appliance: { when: 'an appliance smokes, sparks or smells of gas', script: 'Please leave the room and call the gas line. I am putting you through now.' },
};

function optIn(raw: Record<string, unknown>): Record<string, unknown> {
  const agents = (raw.agents as { tools: { name: string; session?: boolean }[] }[]).map((a) => ({
    ...a,
    tools: [...a.tools.filter((t) => t.name !== 'end_call'), { name: HUMAN_TRANSFER, session: true }, { name: 'end_call', session: true }],
  }));
  return { ...raw, human_transfer: { reasons: REASONS }, agents };
}

function editJson(file: string, edit: (raw: Record<string, unknown>) => Record<string, unknown>): void {
  writeFileSync(file, `${JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), null, 2)}\n`);
}

describe('transfer_to_human, the runtime-declared human transfer', () => {
  let root: string;
  let packsDir: string;
  let pack: Pack;
  let dbs: CallDatabases;
  let calls = 0;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'mivas-human-transfer-'));
    packsDir = copyControlPack(root);
    editJson(join(packsDir, 'control-industry', 'blueprint.json'), optIn);
    writeToolsJson(await readPackDefinition(packsDir, 'control-industry'));
    pack = await loadPack(packsDir, 'control-industry', join(root, 'migrations'));
    dbs = new CallDatabases(join(root, 'calls'), ensureTemplate(join(root, 'templates'), pack));
  });
  afterAll(() => {
    dbs.closeAll();
    rmSync(root, { recursive: true, force: true });
  });

  const fresh = (): CallDatabase => dbs.create(`ht${++calls}`);
  const transfer = (db: CallDatabase, args: unknown, agent = 'reception'): ToolExecution =>
    executeTool({ pack, callId: 'ht', database: db, nowMs: () => 0 }, agent, pack.catalog.get(HUMAN_TRANSFER) ?? (undefined as never), args);
  const escalations = (db: CallDatabase): Record<string, unknown>[] => dumpDatabase(db.sqlite).escalations ?? [];

  it('is declared once: every agent that opts in gets the same session tool, built from the blueprint vocabulary', () => {
    const tool = pack.catalog.get(HUMAN_TRANSFER);
    expect(tool?.kind).toBe('session');
    expect(tool?.definition, 'dispatched through the executor, unlike end_call').toBeDefined();
    expect(pack.module.tools.map((t) => t.name)).not.toContain(HUMAN_TRANSFER);
    const offered = pack.blueprint.agents.map((a) => toolsOfAgent(pack, a.name).find((t) => t.name === HUMAN_TRANSFER));
    expect(offered).toHaveLength(2);
    expect(offered.every((t) => t === tool)).toBe(true);
    const input = tool?.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(input.properties.reason?.enum).toEqual(['caller_request', 'unsafe_appliance']);
    expect(input.properties.summary?.maxLength).toBe(300);
    expect(input.required).toEqual(['reason']);
    expect(tool?.description).toContain('Use when: the caller asks for a person (caller_request); an appliance smokes, sparks or smells of gas (unsafe_appliance).');
    expect(tool?.description.endsWith('Errors: none.')).toBe(true);
    const toolsJson = JSON.parse(readFileSync(join(packsDir, 'control-industry', 'tools.json'), 'utf8')) as { tools: { name: string }[] };
    expect(toolsJson.tools.filter((t) => t.name === HUMAN_TRANSFER)).toHaveLength(1);
  });

  it('writes the call\'s one escalation row; a repeat writes nothing and says idempotent; another call gets its own', () => {
    const db = fresh();
    const first = transfer(db, { reason: 'unsafe_appliance', summary: 'Dryer smells of gas.' }, 'scheduler');
    expect(first.output).toEqual({ ok: true, data: { transferred: true, reason: 'unsafe_appliance', idempotent: false, script: REASONS.unsafe_appliance.script } });
    const row = { id: ESCALATION_ROW_ID, reason: 'unsafe_appliance', subject_kind: null, subject_id: null, agent: 'scheduler', summary: 'Dryer smells of gas.', created_at: '2026-10-05T09:00' };
    expect(escalations(db)).toEqual([row]);
    const again = transfer(db, { reason: 'caller_request' });
    expect(again.output.ok).toBe(true);
    expect((again.output.data as { idempotent: boolean }).idempotent).toBe(true);
    expect(escalations(db)).toEqual([row]);
    const other = fresh();
    expect((transfer(other, { reason: 'caller_request' }).output.data as { idempotent: boolean }).idempotent).toBe(false);
    expect(escalations(other)).toMatchObject([{ id: ESCALATION_ROW_ID, reason: 'caller_request', agent: 'reception', summary: null }]);
  });

  it('records the subject the call has pinned', () => {
    const db = fresh();
    pinSubject(db.db, { kind: 'customer', id: 'cus_maple_1', method: 'test' });
    transfer(db, { reason: 'caller_request' });
    expect(escalations(db)).toMatchObject([{ subject_kind: 'customer', subject_id: 'cus_maple_1' }]);
  });

  it('takes only the pack\'s reasons (spoken forms folded) and a bounded summary; a refused call writes nothing', () => {
    const db = fresh();
    const refused = (args: unknown): unknown => {
      const out = transfer(db, args);
      return [out.output.ok, out.output.error_code, (out.output.data as { invalid_fields?: string[] } | undefined)?.invalid_fields];
    };
    expect(refused({ reason: 'complaint' })).toEqual([false, 'INVALID_ARGUMENTS', ['reason']]);
    expect(refused({})).toEqual([false, 'INVALID_ARGUMENTS', ['reason']]);
    expect(refused({ reason: 'caller_request', summary: 'x'.repeat(301) })).toEqual([false, 'INVALID_ARGUMENTS', ['summary']]);
    expect(refused({ reason: 'caller_request', summary: '' })).toEqual([false, 'INVALID_ARGUMENTS', ['summary']]);
    expect(escalations(db)).toEqual([]);
    expect(transfer(db, { reason: ' Unsafe Appliance' }).canonicalArguments).toEqual({ reason: 'unsafe_appliance' });
    expect(escalations(db)).toMatchObject([{ reason: 'unsafe_appliance' }]);
  });

  it('the blueprint vocabulary is checked: caller_request always, snake_case codes, a when and a script each', () => {
    const base = JSON.parse(readFileSync(join(packsDir, 'control-industry', 'blueprint.json'), 'utf8')) as Record<string, unknown>;
    const withReasons = (reasons: unknown): boolean => blueprintSchema.safeParse({ ...base, human_transfer: { reasons } }).success;
    expect(withReasons(REASONS)).toBe(true);
    expect(withReasons({ unsafe_appliance: REASONS.unsafe_appliance })).toBe(false);
    expect(withReasons({ ...REASONS, 'Gas-Leak': REASONS.unsafe_appliance })).toBe(false);
    expect(withReasons({ ...REASONS, gas_leak: { when: 'gas' } })).toBe(false);
    expect(withReasons({ ...REASONS, gas_leak: { when: 'gas', script: 'Leave.', extra: true } })).toBe(false);
    expect(blueprintSchema.safeParse({ ...base, human_transfer: { reasons: REASONS, scripts: {} } }).success).toBe(false);
  });
});

describe('a pack cannot redeclare or bend the runtime session tools', () => {
  const agent = (tools: Blueprint['agents'][number]['tools']): Blueprint['agents'][number] => ({
    name: 'reception',
    description: 'Front desk.',
    system_prompt: 'prompts/reception.md',
    tools: [...tools, { name: 'end_call', session: true }],
  });
  const blueprint = (tools: Blueprint['agents'][number]['tools'], withVocabulary = true): Blueprint => ({
    company: 'Maple Lane Repairs',
    ...(withVocabulary ? { human_transfer: { reasons: REASONS } } : {}),
    agents: [agent(tools)],
  });
  const own = (name: string) =>
    defineTool({ name, description: 'Use when: x. Returns: y. Do not use for: z. Errors: none.', input: z.object({ reason: z.string().max(20) }), output: z.object({}), effect: 'write', writes: [], run: () => ok({}) });
  const problems = (bp: Blueprint, defined = [own('check_date')]): string[] => buildCatalog(bp, defined, {}).problems;

  it('accepts the opt-in as the runtime declares it', () => {
    expect(problems(blueprint([{ name: HUMAN_TRANSFER, session: true }]))).toEqual([]);
  });

  it('refuses a tools.ts definition of transfer_to_human or end_call', () => {
    expect(problems(blueprint([{ name: HUMAN_TRANSFER, session: true }]), [own(HUMAN_TRANSFER)])).toEqual([
      'tools.ts: transfer_to_human is declared by the runtime; a pack only lists it on its agents in blueprint.json',
    ]);
    expect(problems(blueprint([{ name: HUMAN_TRANSFER, session: true }]), [own('end_call')])[0]).toMatch(/^tools.ts: end_call is declared by the runtime/);
  });

  it('refuses a pack-defined session tool, an unflagged opt-in, an opt-in without vocabulary, and vocabulary nobody uses', () => {
    expect(problems(blueprint([{ name: 'escalate_to_human', session: true }], false), [own('escalate_to_human')])).toEqual([
      'blueprint.json: agents[reception].tools[0] (escalate_to_human): only the runtime\'s end_call and transfer_to_human are session tools',
    ]);
    expect(problems(blueprint([{ name: HUMAN_TRANSFER }]))).toEqual(['blueprint.json: agents[reception].tools[0] (transfer_to_human): transfer_to_human must be marked session: true']);
    expect(problems(blueprint([{ name: HUMAN_TRANSFER, session: true }], false))[0]).toMatch(/has no human_transfer block/);
    expect(problems(blueprint([{ name: 'check_date' }]))).toEqual(['blueprint.json: human_transfer: no agent lists transfer_to_human']);
  });

  it('the loader rejects a pack whose tools.ts redeclares it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mivas-human-transfer-redeclare-'));
    try {
      const packsDir = copyControlPack(root);
      const toolsFile = join(packsDir, 'control-industry', 'tools.ts');
      const source = readFileSync(toolsFile, 'utf8');
      expect(source).toContain('export const tools = [checkDate, bookAppointment];');
      writeFileSync(toolsFile, source.replace('export const tools = [checkDate, bookAppointment];', `export const tools = [checkDate, bookAppointment, { ...checkDate, name: '${HUMAN_TRANSFER}' }];`));
      await expect(loadPack(packsDir, 'control-industry', join(root, 'migrations'))).rejects.toThrow(/transfer_to_human is declared by the runtime/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
