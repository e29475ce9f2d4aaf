import { beforeAll, describe, expect, it } from 'vitest';
import type { Pack } from '../../../src/packs/index.ts';
import type { CallerFile } from '../../../src/snapshot/index.ts';
import { detectVoids, type VoidInput } from '../../../src/scoring/index.ts';
import type { SyntheticCallOptions, SyntheticStep } from '../../../src/scoring/offline-snapshot.ts';
import { loadControlPack, syntheticCall } from '../../support/scoring-fixtures.ts';

let pack: Pack;
beforeAll(async () => {
  pack = await loadControlPack();
});

function voidsOf(steps: SyntheticStep[], options: Partial<SyntheticCallOptions> = {}, extra: Partial<VoidInput> = {}) {
  const call = syntheticCall(pack, steps, { callId: 'c1', taskId: 'S-E1', ...options }, { end_reason: options.endReason ?? 'agent_end_call' });
  return detectVoids({ snapshotProblems: [], summary: call.summary, events: call.events, platformStatus: null, minCallMs: 20_000, ...extra });
}

describe('voids (scoring.md §3)', () => {
  it('a clean call is not void', () => {
    expect(voidsOf([])).toEqual({ reason: null, detail: [] });
  });

  it('snapshot_missing from missing parts and from a truncated timeline', () => {
    expect(voidsOf([], {}, { snapshotProblems: ['missing:timeline.json'] })).toEqual({ reason: 'snapshot_missing', detail: ['missing:timeline.json'] });
    expect(voidsOf([], { omitEnd: true }).reason).toBe('snapshot_missing');
  });

  it('infra_error from an internal end reason', () => {
    expect(voidsOf([], { endReason: 'internal_error' })).toEqual({ reason: 'infra_error', detail: ['end_reason:internal_error'] });
  });

  it('a caller whose own endpoint failed (mind_error, cache_miss) → infra_error, never a caller deviation', () => {
    for (const end_reason of ['mind_error', 'cache_miss'] as const) {
      const caller = { end_reason, hung_up: true } as unknown as CallerFile;
      expect(voidsOf([], { endReason: 'caller_hangup' }, { caller })).toMatchObject({ reason: 'infra_error', detail: expect.arrayContaining([`caller:${end_reason}`]) });
    }
    expect(voidsOf([], { endReason: 'caller_hangup' }, { caller: { end_reason: 'closing_line', hung_up: true } as unknown as CallerFile }).reason).not.toBe('infra_error');
  });

  it('a tool internal fault → infra_error', () => {
    const fault: SyntheticStep = { kind: 'tool', event: { kind: 'industry', name: 'book_appointment', agent: 'scheduler', tool_call_id: null, arguments: {}, canonical_arguments: {}, output: { ok: false, error_code: 'INTERNAL_ERROR' }, duration_ms: 1, executed: true, refusal: null, internal_fault: 'TypeError: boom' } };
    expect(voidsOf([fault]).reason).toBe('infra_error');
  });

  it('a NO_ANSWER result → infra_error with detail caller_platform:NO_ANSWER', () => {
    expect(detectVoids({ snapshotProblems: ['missing:snapshot'], summary: null, events: null, platformStatus: 'NO_ANSWER', minCallMs: 20_000 })).toEqual({ reason: 'infra_error', detail: ['caller_platform:NO_ANSWER'] });
  });

  it('provider_error from the end reason or a fatal provider error', () => {
    expect(voidsOf([], { endReason: 'provider_error' }).reason).toBe('provider_error');
    expect(voidsOf([{ kind: 'provider_error', fatal: true }]).reason).toBe('provider_error');
    expect(voidsOf([{ kind: 'provider_error', fatal: false }]).reason).toBeNull();
  });

  it('no_agent_audio when the agent never spoke', () => {
    expect(voidsOf([], { greet: false }).reason).toBe('no_agent_audio');
  });

  it('caller_never_spoke when the agent spoke but the caller did not', () => {
    expect(voidsOf([], { callerSpeaks: false }).reason).toBe('caller_never_spoke');
  });

  it('caller_dropped_early on an abnormal close or a close within the minimum', () => {
    expect(voidsOf([], { endReason: 'caller_hangup', closeCode: 1006, endAtMs: 90_000 })).toEqual({ reason: 'caller_dropped_early', detail: ['close_code:1006'] });
    expect(voidsOf([], { endReason: 'caller_hangup', closeCode: 1000, endAtMs: 10_000 }).reason).toBe('caller_dropped_early');
    expect(voidsOf([], { endReason: 'caller_hangup', closeCode: 1000, endAtMs: 10_000 }, { minCallMs: 0 }).reason).toBeNull();
  });

  it('caller hang-up after 60 s → scored, not void', () => {
    expect(voidsOf([], { endReason: 'caller_hangup', closeCode: 1000, endAtMs: 60_500 }).reason).toBeNull();
  });

  it('void precedence: with a provider error and no agent audio, the reason is provider_error', () => {
    expect(voidsOf([], { endReason: 'provider_error', greet: false })).toEqual({ reason: 'provider_error', detail: ['end_reason:provider_error', 'no_agent_audio'] });
  });
});
