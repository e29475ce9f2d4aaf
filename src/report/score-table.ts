import type { GroupMetrics, ScoreReport, TaskStats } from '../scoring/index.ts';
import { formatHeadline, formatInterval, formatRate } from './format.ts';

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => pad(cell, widths[i] ?? 0)).join('  ').trimEnd());
}

function passKLine(m: GroupMetrics, k: number): string {
  const ks = Array.from({ length: k }, (_, i) => String(i + 1));
  const hat = ks.map((j) => `pass^${j} ${formatRate(m.pass_hat_k[j])}`).join('  ');
  const headline = `pass^${k} ${formatRate(m.pass_hat_k[String(k)])} ${formatInterval(m.ci.pass_hat_k[String(k)])}`.trim();
  const leftOut = m.left_out[String(k)]?.length ?? 0;
  const differs = m.pass_hat_1_task_mean !== null && m.pass_at_1 !== null && Math.abs(m.pass_hat_1_task_mean - m.pass_at_1) > 1e-9;
  return [
    `  ${headline}${leftOut ? ` (${leftOut} task(s) with n<${k} left out)` : ''}; mean reward ${formatRate(m.mean_reward)}`,
    `  ${hat}${differs ? `  (pass^1 task mean ${formatRate(m.pass_hat_1_task_mean)} differs from pooled pass@1)` : ''}`,
  ].join('\n');
}

function taskRows(tasks: readonly TaskStats[], k: number): string[] {
  const header = ['task', 'harness/model', 'n', 'pass', 'void', 'pass^1', `pass^${k}`, `pass@${k}`, 'flip'];
  const rows = tasks.map((t) => [
    `${t.pack}/${t.task_id}`,
    `${t.harness ?? '-'}/${t.model ?? '-'}`,
    String(t.n),
    String(t.c),
    String(t.voids),
    formatRate(t.pass_hat_k['1']),
    formatRate(t.pass_hat_k[String(k)]),
    formatRate(t.pass_at_k[String(k)]),
    formatRate(t.flip_rate),
  ]);
  return table([header, ...rows]);
}

function problemLines(report: ScoreReport): string[] {
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

/** The terminal summary of a run: headline and per-pack lines with voids beside them, per-task rows, and why each FAIL failed. */
export function renderScoreTable(report: ScoreReport): string {
  const k = report.meta.k;
  const st = report.aggregates.status;
  const out = [`${report.conversations.length} conversation(s): ${st.pass} pass, ${st.fail} fail, ${st.void} void, ${st.unmapped} unmapped, ${st.pending} pending`];
  const hs = report.aggregates.headline_status;
  const head = report.aggregates.headline;
  out.push(head.tasks ? `headline: ${formatHeadline(head, hs.unmapped, hs.pending)} ${formatInterval(head.ci.pass_at_1)}` : 'headline: no scored conversations outside control packs');
  if (head.tasks) out.push(passKLine(head, k));
  for (const row of report.breakdowns.pack) {
    out.push(`pack ${row.value}${row.excluded_from_headline ? ' (control: scored, not in headline or leaderboard)' : ''}: ${formatHeadline(row.metrics, 0, 0)}`);
    out.push(passKLine(row.metrics, k));
  }
  if (report.tasks.length) out.push('', ...taskRows(report.tasks, k));
  const problems = problemLines(report);
  if (problems.length) out.push('', 'not passed:', ...problems);
  return `${out.join('\n')}\n`;
}
