import { groupMetrics, HEADLINE_EXCLUDED_PACKS, type GroupMetrics, type ScoreReportOf, type TaskStats, type VerdictRow } from '../scoring/index.ts';
import { formatHeadline, formatInterval, formatRate } from './format.ts';

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** Rows laid out in padded columns, for the terminal. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => pad(cell, widths[i] ?? 0)).join('  ').trimEnd());
}

function passKLine(m: GroupMetrics, k: number): string {
  const ks = Array.from({ length: k }, (_, i) => String(i + 1));
  const hat = ks.map((j) => `pass^${j} ${formatRate(m.pass_hat_k[j])}`).join('  ');
  const headline = `pass^${k} ${formatRate(m.pass_hat_k[String(k)])} ${formatInterval(m.ci.pass_hat_k[String(k)])}`.trim();
  const leftOut = m.left_out[String(k)]?.length ?? 0;
  const differs = m.pass_hat_1_task_mean !== null && m.pass_at_1 !== null && Math.abs(m.pass_hat_1_task_mean - m.pass_at_1) > 1e-9;
  const first = `  ${headline}${leftOut ? ` (${leftOut} task(s) with n<${k} left out)` : ''}; mean reward ${formatRate(m.mean_reward)}`;
  const note = differs ? `  (pass^1 task mean ${formatRate(m.pass_hat_1_task_mean)} differs from pooled pass@1)` : '';
  // With one trial the pass^1..pass^k line would only repeat the headline.
  if (k === 1) return note ? `${first}\n${note}` : first;
  return [first, `  ${hat}${note}`].join('\n');
}

function taskRows(tasks: readonly TaskStats[], k: number): string[] {
  // With k = 1, pass^k is pass^1 and pass@k is pass^1 too: one column says it.
  const ks = k === 1 ? [] : [`pass^${k}`, `pass@${k}`];
  const header = ['task', 'harness/model', 'n', 'pass', 'void', 'pass^1', ...ks, 'flip'];
  const rows = tasks.map((t) => [
    `${t.pack}/${t.task_id}`,
    `${t.harness ?? '-'}/${t.model ?? '-'}`,
    String(t.n),
    String(t.c),
    String(t.voids),
    formatRate(t.pass_hat_k['1']),
    ...(k === 1 ? [] : [formatRate(t.pass_hat_k[String(k)]), formatRate(t.pass_at_k[String(k)])]),
    formatRate(t.flip_rate),
  ]);
  return table([header, ...rows]);
}

function problemLines(report: ScoreReportOf<VerdictRow>): string[] {
  return report.conversations.flatMap((c) => {
    const who = `${c.conversation_id} ${c.task_id ?? '(no task)'}${c.trial_index ? ` #${c.trial_index}` : ''}`;
    if (c.status === 'FAIL') {
      const gates = [c.state?.pass === false ? 'state' : null, c.tools?.pass === false ? 'tools' : null, c.handoff?.pass === false ? 'handoff' : null].filter(Boolean).join('+');
      return [`  FAIL ${who}: ${gates}: ${c.fail_reasons.slice(0, 2).join(' | ')}`];
    }
    if (c.status === 'VOID') return [`  VOID ${who}: ${c.void_reason ?? ''}${c.void_detail.length ? ` (${c.void_detail.join('; ')})` : ''}`];
    if (c.status === 'UNMAPPED') return [`  UNMAPPED ${who}: ${c.unmapped_reason ?? ''}`];
    if (c.status === 'PENDING') return [`  PENDING ${who}`];
    return [];
  });
}

/** The headline population split by harness and model (one group when a single harness/model was scored). */
export function headlineGroups(report: ScoreReportOf<VerdictRow>): { who: string; metrics: GroupMetrics }[] {
  const settings = { seed: report.meta.bootstrap.seed, resamples: report.meta.bootstrap.resamples, k: report.meta.k };
  const groups = new Map<string, TaskStats[]>();
  for (const t of report.tasks) {
    if (HEADLINE_EXCLUDED_PACKS.has(t.pack)) continue;
    const who = `${t.harness ?? '-'}/${t.model ?? '-'}`;
    groups.set(who, [...(groups.get(who) ?? []), t]);
  }
  return [...groups.keys()].sort().map((who) => ({ who, metrics: groupMetrics(groups.get(who) ?? [], settings) }));
}

/** The headline line when no task counts toward it: by design when only a control pack ran (the demo), else nothing was scored. */
function emptyHeadline(report: ScoreReportOf<VerdictRow>): string {
  const packs = [...new Set(report.conversations.map((c) => c.pack))];
  if (packs.length && packs.every((p) => HEADLINE_EXCLUDED_PACKS.has(p))) return `headline: none, by design: ${packs.join(', ')} is a wiring check, scored below and kept out of headline figures`;
  return 'headline: no scored conversation outside control packs';
}

/** The run's estimated cost, what was left unpriced and why beside it. */
function costText(d: ScoreReportOf<VerdictRow>['aggregates']['diagnostics']): string {
  const priced = d.cost_usd_est === null ? null : `$${d.cost_usd_est.toFixed(4)}`;
  if (d.cost_note === null) return priced ?? 'not priced';
  return priced === null ? d.cost_note : `${priced} (and ${d.cost_note})`;
}

/** The duplex part of the diagnostics line, only when the callers played duplex acts (docs/caller.md). */
function duplexLine(d: ScoreReportOf<VerdictRow>['aggregates']['diagnostics']): string {
  const x = d.duplex as typeof d.duplex | undefined;
  if (!x || x.cut_ins + x.back_channels === 0) return '';
  const stop = x.stop_max_ms === null ? '' : `, slowest stop ${Math.round(x.stop_max_ms)} ms`;
  return `duplex: yielded to ${x.yielded} of ${x.cut_ins} cut-ins${stop}, ${x.back_channels_took_floor} of ${x.back_channels} back-channels took the floor, stale value used after ${x.stale_used} of ${x.corrections} corrections; `;
}

/** The run's diagnostics on one line: beside the verdicts, never in pass (scoring.md §10.1). */
function diagnosticsLine(report: ScoreReportOf<VerdictRow>): string {
  const d = report.aggregates.diagnostics;
  const judge = d.judge_mean ? `judge (${d.judged} judged) ${Object.entries(d.judge_mean).map(([c, m]) => `${c} ${m.toFixed(2)}`).join(', ')}` : 'judge absent';
  return `diagnostics (never in pass): ${d.turns} turns, response latency p50 ${d.latency_p50_ms ?? '—'} ms, p95 ${d.latency_p95_ms ?? '—'} ms; said aloud ${d.said_aloud_said} of ${d.said_aloud_checked} answers; cost ${costText(d)}; transcript WER ${d.transcript_wer_mean ?? '—'}; ${duplexLine(d)}${judge}`;
}

/** The terminal summary of a run: headline and per-pack lines with voids beside them, per-task rows, and why each FAIL failed. */
export function renderScoreTable(report: ScoreReportOf<VerdictRow>): string {
  const k = report.meta.k;
  const st = report.aggregates.status;
  const out = [`${report.conversations.length} conversation(s): ${st.pass} pass, ${st.fail} fail, ${st.void} void, ${st.unmapped} unmapped, ${st.pending} pending`];
  const hs = report.aggregates.headline_status;
  const head = report.aggregates.headline;
  const split = headlineGroups(report);
  if (split.length > 1) {
    // Never one number over several harnesses or models: a headline each.
    out.push(`headline per harness/model (${split.length}; not pooled):`);
    for (const g of split) out.push(`  ${g.who}: ${formatHeadline(g.metrics, 0, 0)} ${formatInterval(g.metrics.ci.pass_at_1)}`, passKLine(g.metrics, k).replace(/^/gm, '  '));
  } else {
    out.push(head.tasks ? `headline: ${formatHeadline(head, hs.unmapped, hs.pending)} ${formatInterval(head.ci.pass_at_1)}` : emptyHeadline(report));
    if (head.tasks) out.push(passKLine(head, k));
  }
  for (const row of report.breakdowns.pack) {
    out.push(`pack ${row.value}${row.excluded_from_headline ? ' (control: scored, not in headline or leaderboard)' : ''}: ${formatHeadline(row.metrics, 0, 0)}`);
    out.push(passKLine(row.metrics, k));
  }
  out.push(diagnosticsLine(report));
  if (report.tasks.length) out.push('', ...taskRows(report.tasks, k));
  const problems = problemLines(report);
  if (problems.length) out.push('', 'not passed:', ...problems);
  return `${out.join('\n')}\n`;
}
