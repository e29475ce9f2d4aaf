/**
 * Verdicts kept on disk while a run is scored, so `mivas score` holds only a small row per
 * conversation (`VerdictRow`) however many it scores. Each verdict is one JSON line in a temporary
 * file; its row remembers where. Reading a verdict back gives the same JSON text it was written
 * from, with the trial index and judge scores the run laid on its row since.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConversationVerdict, VerdictRow } from './types.ts';

/** A verdict's row, and where its whole verdict lies in the spill file. */
export type SpilledVerdict = VerdictRow & { readonly spilled: { readonly offset: number; readonly bytes: number } };

/** The row of a verdict: what the run's figures read, copied out so the verdict itself can be let go. */
export function verdictRow(v: ConversationVerdict): VerdictRow {
  const d = v.diagnostics;
  return {
    conversation_id: v.conversation_id, run_id: v.run_id, task_id: v.task_id, pack: v.pack, pack_version: v.pack_version, harness: v.harness, model: v.model,
    category: v.category, difficulty: v.difficulty, audio_condition: v.audio_condition, trial_index: v.trial_index, started_at: v.started_at, duration_s: v.duration_s,
    status: v.status, unmapped_reason: v.unmapped_reason, void_reason: v.void_reason, void_detail: v.void_detail, reward: v.reward,
    fail_reasons: v.fail_reasons.slice(0, 2),
    state: v.state && { pass: v.state.pass }, tools: v.tools && { pass: v.tools.pass }, handoff: v.handoff && { pass: v.handoff.pass },
    quality: { first_agent_audio_ms: v.quality.first_agent_audio_ms, latency_p50_ms: v.quality.latency_p50_ms, latency_p95_ms: v.quality.latency_p95_ms },
    cost: { cost_usd_est: v.cost.cost_usd_est, cost_note: v.cost.cost_note },
    diagnostics: { turn_latencies_ms: d.turn_latencies_ms, barge_in_stops_ms: d.barge_in_stops_ms, transcript_wer: d.transcript_wer, judge: d.judge, ...(d.duplex ? { duplex: d.duplex } : {}), said_aloud: d.said_aloud.map((c) => ({ said: c.said })) },
  };
}

/** An append-only file of verdicts, one JSON line each, removed by `close`. */
export class VerdictSpill {
  private size = 0;
  /** One buffer reused for every read (a fresh one per verdict is external memory only a collection frees). */
  private readBuffer = Buffer.alloc(0);
  private readonly dir: string;
  private readonly fd: number;

  private constructor(dir: string, fd: number) {
    this.dir = dir;
    this.fd = fd;
  }

  /** A new spill file in a private folder under the system's temporary folder. */
  static create(): VerdictSpill {
    const dir = mkdtempSync(join(tmpdir(), 'mivas-verdicts-'));
    return new VerdictSpill(dir, openSync(join(dir, 'verdicts.jsonl'), 'w+', 0o600));
  }

  /** Writes the verdict and returns its row. */
  add(v: ConversationVerdict): SpilledVerdict {
    const text = `${JSON.stringify(v)}\n`;
    const bytes = Buffer.byteLength(text);
    writeSync(this.fd, text, this.size, 'utf8');
    const spilled = { offset: this.size, bytes };
    this.size += bytes;
    return { ...verdictRow(v), spilled };
  }

  /** The whole verdict of a row, with the row's trial index and (when judged) its judge scores. */
  verdict(row: SpilledVerdict): ConversationVerdict {
    if (this.readBuffer.length < row.spilled.bytes) this.readBuffer = Buffer.allocUnsafe(Math.max(row.spilled.bytes, 2 * this.readBuffer.length));
    readSync(this.fd, this.readBuffer, 0, row.spilled.bytes, row.spilled.offset);
    const stored = JSON.parse(this.readBuffer.toString('utf8', 0, row.spilled.bytes)) as ConversationVerdict;
    const judge = row.diagnostics.judge;
    return { ...stored, trial_index: row.trial_index, ...(judge ? { diagnostics: { ...stored.diagnostics, judge } } : {}) };
  }

  close(): void {
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
