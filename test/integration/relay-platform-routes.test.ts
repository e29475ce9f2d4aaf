import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Vapi } from '@vapi-ai/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialOpeningLine, type ConversationReport } from '../../src/caller/index.ts';
import type { CallerReport } from '../../src/caller/index.ts';
import { readSnapshot, eventsOf } from '../support/realtime-call.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { modemSynth } from '../support/text-modem.ts';
import { TwilioMsBot, type BotConnection } from '../support/twilio-ms-bot.ts';
import { packOf } from '../support/episode-rig.ts';

/**
 * Issue 34, acceptance 3–6 on live `relay/twilio-ms` calls (the strict bot in manual mode, the
 * test speaking for it): platform routes reach the right conversation only. A Vapi `tool-calls`
 * webhook (body typed as `@vapi-ai/server-sdk` 2.0.1's `ServerMessageToolCalls`, `ToolCall`) for an
 * unbound call id is refused and creates no database; for the relay's bound id its writes land in
 * that call's snapshot. The official MCP client (`@modelcontextprotocol/sdk`) connects to the
 * per-call MCP endpoint, lists the active desk's tools, and its calls land in that call's snapshot;
 * an unknown id is refused. A specialist's tool before its transfer is refused
 * (`TOOL_NOT_AVAILABLE`); in observe mode the hop is recorded as `inferred`. An agent line that
 * claims a booking without a tool call records no tool call and writes nothing.
 */

const PACK = 'control-industry';
const TOKEN = 'platform-test-token';
const OPENING = "Hi, I'd like to book a repair visit for Wednesday, October seventh.";
const BOOK = { date: '2026-10-07' };

type VapiToolCallsBody = { message: Pick<Vapi.ServerMessageToolCalls, 'type' | 'toolCallList'> & { call: Pick<Vapi.Call, 'id'> } };

interface Rig {
  readonly server: TestServer;
  readonly bot: TwilioMsBot;
}

async function startRig(env: Record<string, string> = {}): Promise<Rig> {
  const bot = await TwilioMsBot.start({ pack: await packOf(PACK), platformToken: TOKEN, manual: true });
  const server = await startTestServer({ MIVAS_PACK: PACK, MIVAS_FAST: '1', MIVAS_HARNESS: 'relay/twilio-ms', MIVAS_RELAY_TWILIO_URL: bot.url, MIVAS_PLATFORM_TOKEN: TOKEN, ...env });
  return { server, bot };
}

/** Dials one call as the caller (opening line, then holding) and waits for the bot to have greeted. */
async function dial(rig: Rig, callId: string): Promise<{ caller: Promise<CallerReport>; bot: BotConnection }> {
  const caller = dialOpeningLine({ url: rig.server.wsUrl, callId, taskId: 'S-E1', runId: 'run_platform', auth: null, openingLine: OPENING, synth: modemSynth(), paced: false, timeoutMs: 30_000 });
  return { caller, bot: await rig.bot.nextCall() };
}

function post(rig: Rig, path: string, body: unknown, token = TOKEN): Promise<Response> {
  return fetch(`${rig.server.httpUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function vapiBody(callId: string, calls: { id: string; name: string; args: Record<string, unknown> }[]): VapiToolCallsBody {
  return { message: { type: 'tool-calls', call: { id: callId }, toolCallList: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) } };
}

function databaseFiles(server: TestServer): string[] {
  const dir = join(server.dataDir, 'calls');
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Ends a call through the bot: end_call on the platform route (the `{"arguments": …}` form), then the bot hangs up. */
async function endCall(rig: Rig, callId: string, bot: BotConnection, caller: Promise<CallerReport>): Promise<void> {
  const res = await post(rig, `/platform/calls/${callId}/tools/end_call`, { arguments: { reason: 'caller_done' } });
  expect(res.status).toBe(200);
  bot.hangUp();
  expect((await caller as ConversationReport).timedOut).toBe(false);
  await rig.server.ctx.outbox.flush();
}

describe('platform routes on live relay calls (enforce mode)', () => {
  let rig: Rig;
  let mapDir: string;
  beforeAll(async () => {
    // The team's bot names the scheduler desk its own way (docs/platforms.md, "Desk mapping").
    mapDir = mkdtempSync(join(tmpdir(), 'mivas-desk-map-'));
    writeFileSync(join(mapDir, 'desks.json'), JSON.stringify({ desks: { booking_node: 'scheduler' } }));
    rig = await startRig({ MIVAS_RELAY_DESK_MAP: join(mapDir, 'desks.json') });
  }, 60_000);
  afterAll(async () => {
    await rig?.server.close();
    await rig?.bot.close();
    rmSync(mapDir, { recursive: true, force: true });
  });

  it('refuses an unbound id on every platform path and creates no database, while the bearer token is required', async () => {
    const before = databaseFiles(rig.server);
    const vapi = await post(rig, '/platform/vapi/tool-calls', vapiBody('CA_nobody_dialed', [{ id: 'tc1', name: 'book_appointment', args: BOOK }]));
    expect(vapi.status).toBe(404);
    expect(((await vapi.json()) as { error: { code: string } }).error.code).toBe('CALL_NOT_BOUND');
    const relay = await post(rig, '/platform/calls/loc_nobody_dialed/tools/book_appointment', BOOK);
    expect(relay.status).toBe(404);
    expect(rig.server.ctx.databases.exists('loc_nobody_dialed')).toBe(false);
    expect(databaseFiles(rig.server)).toEqual(before);
    expect((await post(rig, '/platform/calls/loc_nobody_dialed/tools/book_appointment', BOOK, 'wrong')).status).toBe(401);
    const mcp = new Client({ name: 'mivas-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${rig.server.httpUrl}/platform/calls/loc_nobody_dialed/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    await expect(mcp.connect(transport)).rejects.toThrow(/not a live call/);
    expect(rig.server.ctx.databases.exists('loc_nobody_dialed')).toBe(false);
  });

  it('maps a Vapi tool-calls webhook to the call the relay bound its id to: the hop (the bot\'s node name mapped to the pack\'s desk) and the booking land in that call\'s snapshot; a specialist\'s tool before the hop is refused', async () => {
    const callId = 'loc_vapi_bound_1';
    const { caller, bot } = await dial(rig, callId);
    const early = await post(rig, `/platform/calls/${callId}/tools/book_appointment`, BOOK);
    expect(await early.json()).toMatchObject({ ok: false, error_code: 'TOOL_NOT_AVAILABLE' });
    const callSid = bot.start?.callSid ?? '';
    const res = await post(rig, '/platform/vapi/tool-calls', vapiBody(callSid, [
      { id: 'vapi_tc_1', name: 'transfer_to_booking_node', args: {} },
      { id: 'vapi_tc_2', name: 'book_appointment', args: BOOK },
    ]));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Vapi.ServerMessageResponseToolCalls;
    expect(answer.results?.map((r) => [r.toolCallId, r.name])).toEqual([['vapi_tc_1', 'transfer_to_booking_node'], ['vapi_tc_2', 'book_appointment']]);
    expect(JSON.parse(answer.results?.[1]?.result ?? '{}')).toMatchObject({ ok: true, data: { date: '2026-10-07' } });
    await endCall(rig, callId, bot, caller);
    const { events } = await readSnapshot(rig.server, callId);
    const tools = eventsOf(events, 'tool');
    expect(tools.map((t) => [t.name, t.agent, t.executed, t.refusal, t.tool_call_id])).toEqual([
      ['book_appointment', 'reception', false, 'TOOL_NOT_AVAILABLE', null],
      ['transfer_to_scheduler', 'reception', true, null, 'vapi_tc_1'],
      ['book_appointment', 'scheduler', true, null, 'vapi_tc_2'],
      ['end_call', 'scheduler', true, null, null],
    ]);
    expect(eventsOf(events, 'handoff').map((h) => `${h.from}>${h.to}`)).toEqual(['reception>scheduler']);
  });

  it('serves the call\'s tools over MCP with the official client: the active desk\'s tools, list_changed after the hop, and the calls in that call\'s snapshot', async () => {
    const callId = 'loc_mcp_bound_1';
    const { caller, bot } = await dial(rig, callId);
    const mcp = new Client({ name: 'mivas-test', version: '1.0.0' });
    let changed = 0;
    mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${rig.server.httpUrl}/platform/calls/${callId}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(['end_call', 'transfer_to_scheduler']);
    await mcp.callTool({ name: 'transfer_to_scheduler', arguments: {} });
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(['book_appointment', 'check_date', 'end_call']);
    const booked = await mcp.callTool({ name: 'book_appointment', arguments: BOOK });
    expect(booked.structuredContent).toMatchObject({ ok: true, data: { date: '2026-10-07' } });
    expect(changed).toBe(1);
    await mcp.close();
    await endCall(rig, callId, bot, caller);
    const { events } = await readSnapshot(rig.server, callId);
    expect(eventsOf(events, 'tool').map((t) => [t.name, t.origin, t.executed])).toEqual([
      ['transfer_to_scheduler', 'http', true],
      ['book_appointment', 'http', true],
      ['end_call', 'http', true],
    ]);
  });

  it('never invents a tool call from speech: an agent line claiming a booking records no tool call and writes nothing', async () => {
    const callId = 'loc_claims_booking';
    const { caller, bot } = await dial(rig, callId);
    await bot.say('Done: I have booked your repair visit for Wednesday, October seventh. Your appointment id is appt_20261007.');
    bot.hangUp();
    await caller;
    await rig.server.ctx.outbox.flush();
    const { events, summary } = await readSnapshot(rig.server, callId);
    expect(eventsOf(events, 'tool')).toEqual([]);
    expect(eventsOf(events, 'agent.hangup')).toHaveLength(1);
    expect(summary.counts.tool_calls).toBe(0);
    expect(summary.counts.rows_written).toBe(0);
    expect(summary.end_reason).toBe('agent_end_call');
  });
});

describe('observe mode (MIVAS_RELAY_HANDOFFS=observe)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ MIVAS_RELAY_HANDOFFS: 'observe' });
  }, 60_000);
  afterAll(async () => {
    await rig?.server.close();
    await rig?.bot.close();
  });

  it('records the hop a platform reported only after the fact as inferred, then runs the specialist\'s tool', async () => {
    const callId = 'loc_observe_1';
    const { caller, bot } = await dial(rig, callId);
    const res = await post(rig, `/platform/calls/${callId}/tools/book_appointment`, BOOK);
    expect(await res.json()).toMatchObject({ ok: true });
    await endCall(rig, callId, bot, caller);
    const { events } = await readSnapshot(rig.server, callId);
    expect(eventsOf(events, 'tool').map((t) => [t.name, t.origin, t.agent, t.executed])).toEqual([
      ['transfer_to_scheduler', 'inferred', 'reception', true],
      ['book_appointment', 'http', 'scheduler', true],
      ['end_call', 'http', 'scheduler', true],
    ]);
    expect(eventsOf(events, 'handoff').map((h) => `${h.from}>${h.to}`)).toEqual(['reception>scheduler']);
  });
});
