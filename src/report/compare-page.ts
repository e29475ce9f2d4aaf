import { comparePaired, PAIRED_ALPHA, PAIRED_POWER, type ConversationVerdict, type PairedComparison, type TaskStats } from '../scoring/index.ts';
import { intervalChart } from './charts.ts';
import { formatInterval, formatRate, formatVoids } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { navOf, rankingRule } from './leaderboard-page.ts';
import { renderPage } from './page-shell.ts';
import { renderRunTable } from './runs-page.ts';
import { trialCell } from './task-grid.ts';
import { failingGates, taskHref, type Entry, type LeaderRow, type RankGroup, type ReportModel, type TaskRow } from './ui-model.ts';

/** One task where two runs' pass rates differ: which passed more often, each side's trials and the gate that decided it. */
export interface DifferingTask {
  readonly taskId: string;
  readonly slug: string;
  readonly winner: 'a' | 'b';
  readonly a: TaskRow;
  readonly b: TaskRow;
  /** The failing side's deciding gate(s) and first reason. */
  readonly decidingGates: readonly string[];
  readonly reason: string | null;
}

/** Two entries on the same suite, A ranked at or above B. */
export interface PairView {
  readonly id: string;
  readonly a: LeaderRow;
  readonly b: LeaderRow;
  readonly stats: PairedComparison;
  readonly differing: readonly DifferingTask[];
  /** Tasks only one side ran (left out of the pair). */
  readonly unpaired: number;
}

/** A suite's runs on the comparison page: its rank groups and every pair. */
export interface SuiteView {
  readonly suiteKey: string;
  readonly suiteLabel: string;
  readonly groups: readonly RankGroup[];
  readonly pairs: readonly PairView[];
}

/** Entries compared on one page are capped so the pair list stays readable (n(n−1)/2 pairs). */
const MAX_ENTRIES_PER_SUITE = 12;

function rowsOf(model: ReportModel, entry: Entry): Map<string, TaskRow> {
  return new Map(model.taskRows.filter((r) => r.entry === entry).map((r) => [r.stats.task_id, r]));
}

/** The gates that failed most often on the losing side's failed trials (state, tools, handoff order) and its first reason. */
export function decidingGate(trials: readonly ConversationVerdict[]): { gates: string[]; reason: string | null } {
  const failed = trials.filter((v) => v.status === 'FAIL');
  const counts = new Map<string, number>();
  for (const v of failed) for (const g of failingGates(v)) counts.set(g, (counts.get(g) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  const gates = ['state', 'tools', 'handoff'].filter((g) => top > 0 && counts.get(g) === top);
  const first = failed.find((v) => gates.some((g) => failingGates(v).includes(g as 'state'))) ?? failed[0];
  return { gates, reason: first?.fail_reasons[0] ?? null };
}

function pairOf(model: ReportModel, a: LeaderRow, b: LeaderRow): PairView {
  const ra = rowsOf(model, a.entry);
  const rb = rowsOf(model, b.entry);
  const shared = [...ra.keys()].filter((t) => rb.has(t)).sort();
  const side = (s: TaskStats): { n: number; c: number } => ({ n: s.n, c: s.c });
  const stats = comparePaired(
    shared.map((t) => ({ task_id: t, a: side((ra.get(t) as TaskRow).stats), b: side((rb.get(t) as TaskRow).stats) })),
    { seed: a.entry.settings.seed, resamples: Math.min(a.entry.settings.resamples, 10_000) },
  );
  const differing = shared.flatMap((t): DifferingTask[] => {
    const ta = ra.get(t) as TaskRow;
    const tb = rb.get(t) as TaskRow;
    if (ta.stats.n === 0 || tb.stats.n === 0) return [];
    // Cross-multiplied so 2/4 and 1/2 count as equal rates.
    const lead = ta.stats.c * tb.stats.n - tb.stats.c * ta.stats.n;
    if (lead === 0) return [];
    const decided = decidingGate((lead > 0 ? tb : ta).trials);
    return [{ taskId: t, slug: ta.slug, winner: lead > 0 ? 'a' : 'b', a: ta, b: tb, decidingGates: decided.gates, reason: decided.reason }];
  });
  return { id: `pair-${a.entry.id}-${b.entry.id}`, a, b, stats, differing, unpaired: new Set([...ra.keys(), ...rb.keys()]).size - shared.length };
}

/** The comparison of every suite with more than one run: rank groups and all pairs (A ranked first). */
export function buildComparison(model: ReportModel): SuiteView[] {
  const bySuite = new Map<string, RankGroup[]>();
  for (const g of model.groups) bySuite.set(g.suiteKey, [...(bySuite.get(g.suiteKey) ?? []), g]);
  return [...bySuite.entries()].map(([suiteKey, groups]) => {
    const ordered = groups
      .flatMap((g) => g.rows)
      .sort((x, y) => (x.rank ?? Infinity) - (y.rank ?? Infinity) || (y.metrics.pass_at_1 ?? -1) - (x.metrics.pass_at_1 ?? -1) || (x.entry.label < y.entry.label ? -1 : 1))
      .slice(0, MAX_ENTRIES_PER_SUITE);
    const pairs: PairView[] = [];
    for (let i = 0; i < ordered.length; i++) for (let j = i + 1; j < ordered.length; j++) pairs.push(pairOf(model, ordered[i] as LeaderRow, ordered[j] as LeaderRow));
    return { suiteKey, suiteLabel: groups[0]?.suiteLabel ?? suiteKey, groups, pairs };
  });
}

function pValue(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

function pct(v: number | null): string {
  return v === null ? '—' : `${(v * 100).toFixed(1)} points`;
}

function rankTable(g: RankGroup): SafeHtml {
  const k = String(g.k);
  const control = g.rows[0]?.isControl ?? false;
  const rows = g.rows.map(
    (r) =>
      html`<tr data-entry="${r.entry.id}"><td class="rank">${r.rank ?? '—'}</td><td><b>${r.entry.label}</b><div class="small muted">${r.entry.run.run_id} · ${r.harness ?? '-'}/${r.model ?? '-'}</div></td><td>${r.metrics.tasks}</td><td>${r.metrics.scored}</td><td>${formatRate(r.metrics.pass_at_1)} <span class="muted small">${formatInterval(r.metrics.ci.pass_at_1)}</span></td><td>${formatRate(r.metrics.pass_hat_k[k])} <span class="muted small">${formatInterval(r.metrics.ci.pass_hat_k[k])}</span></td><td>${formatRate(r.metrics.mean_reward)} <span class="muted small">${formatInterval(r.metrics.ci.mean_reward)}</span></td><td>${formatVoids(r.metrics.voids, r.metrics.voids_by_type)}</td></tr>`,
  );
  return html`<p class="rule small"><b>${g.tasks} task${g.tasks === 1 ? '' : 's'}</b> (task set ${g.taskSetHash}): ${control ? 'a control pack: shown, never ranked' : rankingRule(g.k)}.</p><div class="scroll"><table class="ranking"><thead><tr><th>rank</th><th>run</th><th>tasks</th><th>scored</th><th>pass@1 [95% CI]</th><th>pass^${k} [95% CI]</th><th>mean reward [95% CI]</th><th>voids</th></tr></thead><tbody>${rows}</tbody></table></div>${intervalChart(`pass@1 with its 95% bootstrap interval over tasks`, g.rows.map((r) => ({ label: r.entry.label, value: r.metrics.pass_at_1, interval: r.metrics.ci.pass_at_1, colour: r.entry.colour })))}`;
}

function twoByTwo(p: PairView): SafeHtml {
  const t = p.stats.table;
  return html`<table class="paired"><thead><tr><th></th><th>B passes</th><th>B fails</th></tr></thead><tbody><tr><th>A passes</th><td class="both" data-count="${t.both}">${t.both} both</td><td class="a-only" data-count="${t.a_only}"><b>${t.a_only}</b> A only</td></tr><tr><th>A fails</th><td class="b-only" data-count="${t.b_only}"><b>${t.b_only}</b> B only</td><td class="neither" data-count="${t.neither}">${t.neither} neither</td></tr></tbody></table>`;
}

function points(v: number): string {
  return (v * 100).toFixed(1);
}

const METHOD_NAME = { paired_bootstrap: 'paired bootstrap over tasks', newcombe_wilson: 'Newcombe–Wilson over tasks: every task differs by the same amount, so the bootstrap has no spread' } as const;

/** The verdict: the per-task pass-rate difference and its interval, read from one computation, so the words and the numbers cannot disagree. */
export function rateVerdict(s: PairedComparison): { significant: boolean; text: string } {
  const ci = s.rate_difference_ci;
  if (s.rate_difference === null || ci === null) return { significant: false, text: 'no task with scored trials on both sides' };
  const where = s.rate_significant ? 'leaves out 0' : 'includes 0';
  return { significant: s.rate_significant, text: `per-task pass rate A − B ${points(s.rate_difference)} points, 95% interval [${points(ci[0])}, ${points(ci[1])}] (${s.rate_ci_method ? METHOD_NAME[s.rate_ci_method] : ''}), which ${where}` };
}

function verdictSentence(p: PairView): SafeHtml {
  const s = p.stats;
  const n = s.table.tasks;
  const verdict = rateVerdict(s);
  const passK = s.mcnemar_p <= PAIRED_ALPHA && s.table.a_only + s.table.b_only > 0;
  const mdd = s.mdd === null ? (s.discordance ? 'no difference is detectable at this discordance' : 'not estimable (no discordant task)') : pct(s.mdd);
  return html`<p class="test"><b class="${verdict.significant ? 'ok' : 'muted'}">${verdict.significant ? 'Significant' : 'Not significant'}</b> at α = ${PAIRED_ALPHA} over ${n} tasks: <span class="rate">${verdict.text}</span>.</p>
<p class="pass-k small">pass^k reading (a task passes only when every trial passed): ${s.table.a_only} task(s) only A passes, ${s.table.b_only} only B; difference ${pct(s.difference)}; exact McNemar p = <span class="p">${pValue(s.mcnemar_p)}</span>, ${passK ? 'significant' : 'not significant'} on its own. Near 0% or 100% few tasks pass every trial, so this reading rarely finds a difference the per-task rate shows.</p>
<p class="mdd small">Minimum detectable difference of the pass^k reading at n = ${n} tasks (${PAIRED_POWER * 100}% power, α = ${PAIRED_ALPHA}, exact test): <b>${mdd}</b> at the observed discordance ${s.discordance === null ? '—' : formatRate(s.discordance)}; ${s.mdd_floor === null ? html`at n = ${n} no difference can reach significance, whatever the discordance.` : html`no difference below <b>${pct(s.mdd_floor)}</b> is detectable at this n whatever the discordance.`}${p.unpaired ? ` ${p.unpaired} task(s) only one run has are left out.` : ''}${s.not_comparable.length ? ` Left out (every trial void on a side): ${s.not_comparable.join(', ')}.` : ''}</p>`;
}

function outcome(r: TaskRow): SafeHtml {
  return html`<table class="cells"><tbody><tr>${r.trials.map((v) => trialCell(v))}</tr></tbody></table><span class="small">${r.stats.c}/${r.stats.n}${r.stats.voids ? ` +${r.stats.voids} void` : ''}</span>`;
}

function differingTable(model: ReportModel, p: PairView): SafeHtml {
  if (!p.differing.length) return html`<p class="small muted">No task where the two runs' pass rates differ.</p>`;
  const rows = p.differing.map((d) => {
    const info = model.taskInfo.get(d.slug);
    const loser = d.winner === 'a' ? 'B' : 'A';
    return html`<tr class="differing" data-task="${d.taskId}" data-winner="${d.winner}"><td><a class="task-link" href="${taskHref(d.slug)}">${d.taskId}</a>${info ? html`<div class="small muted">${info.title}</div>` : ''}</td><td class="side-a">${outcome(d.a)}</td><td class="side-b">${outcome(d.b)}</td><td class="gate"><b>${loser}</b> passes less often; fails ${d.decidingGates.length ? html`<span class="badge fail">${d.decidingGates.join(' + ')}</span>` : 'void'}${d.reason ? html`<div class="small">${d.reason}</div>` : ''}</td></tr>`;
  });
  return html`<div class="scroll"><table class="differing-tasks"><thead><tr><th class="task-col">task</th><th>A <span class="small muted">${p.a.entry.harness ?? '-'}/${p.a.entry.model ?? '-'}</span></th><th>B <span class="small muted">${p.b.entry.harness ?? '-'}/${p.b.entry.model ?? '-'}</span></th><th>deciding gate</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function pairSection(model: ReportModel, p: PairView): SafeHtml {
  return html`<section class="pair panel" id="${p.id}" data-a="${p.a.entry.id}" data-b="${p.b.entry.id}"><h3>A: ${p.a.entry.label} <span class="muted">vs</span> B: ${p.b.entry.label}</h3>${twoByTwo(p)}${verdictSentence(p)}<h4>Tasks where they differ (${p.differing.length})</h4>${differingTable(model, p)}</section>`;
}

function pairMatrix(s: SuiteView): SafeHtml {
  if (s.pairs.length < 2) return html``;
  const ids = [...new Map(s.pairs.flatMap((p) => [p.a, p.b]).map((r) => [r.entry.id, r])).values()];
  const cell = (a: LeaderRow, b: LeaderRow): SafeHtml => {
    const p = s.pairs.find((x) => x.a === a && x.b === b);
    const ci = p?.stats.rate_difference_ci;
    return p ? html`<td><a href="#${p.id}">${p.stats.rate_significant ? '✱ ' : ''}${p.stats.rate_difference === null ? '—' : points(p.stats.rate_difference)}</a><div class="small muted">${ci ? `[${points(ci[0])}, ${points(ci[1])}]` : ''}</div></td>` : html`<td></td>`;
  };
  return html`<div class="scroll"><table class="pair-matrix"><thead><tr><th>A \\ B</th>${ids.map((r) => html`<th title="${r.entry.label}">${r.entry.id}</th>`)}</tr></thead><tbody>${ids.map((a) => html`<tr><th title="${a.entry.label}">${a.entry.id} ${a.entry.label}</th>${ids.map((b) => cell(a, b))}</tr>`)}</tbody></table></div>`;
}

const METHOD = html`<section class="panel method small"><h2>How runs are compared</h2><ul>
<li><b>Unit.</b> The task: trials of one task are correlated, tasks are not. Tasks with every trial void on either side are left out. Only tasks both runs ran are paired.</li>
<li><b>Verdict.</b> The mean over tasks of each task's pass-rate difference c_A/n_A − c_B/n_B (every trial counts), with a 95% paired bootstrap interval (tasks resampled together, the scoring's seed). When every task differs by the same amount the bootstrap has no spread, and Newcombe's interval from each run's Wilson score interval over the tasks replaces it, so it never collapses at 0% or 100%. The difference is significant exactly when the interval leaves out 0: the sentence and the numbers come from one computation. The matrix marks such pairs ✱.</li>
<li><b>pass^k reading.</b> A task counts as passed when every scored trial of it passed. Exact McNemar: of the discordant tasks, the count favouring either run is Binomial(b + c, ½) when the runs are equally good, so p = min(1, 2·P(X ≤ min(b, c))). Two-sided, α = ${PAIRED_ALPHA}. Stated beside the verdict, never as it.</li>
<li><b>Minimum detectable difference.</b> Of the pass^k reading: the smallest difference in task pass rate δ that the exact test finds with ${PAIRED_POWER * 100}% power at this number of tasks n, when a share ψ of tasks is discordant: the discordant count is Binomial(n, ψ) and, given m discordant, the count favouring the better run is Binomial(m, (ψ + δ)/2ψ); power is summed exactly over m and δ found by bisection. It is given at the observed ψ, and as a floor: the smallest δ any ψ makes detectable, below which no difference can be found at this n.</li>
<li><b>Ranking.</b> Within one pack version, suite and task set only: pass^k at the largest k every task has trials for, then pass@1, then mean reward; equal figures share a rank. A difference in rank is not a significant difference unless its pair says so.</li></ul></section>`;

/** The comparison page: the runs, each suite's ranking, and for every pair the paired table, test and differing tasks. */
export function renderComparePage(model: ReportModel): string {
  const suites = buildComparison(model);
  const sections = suites.map(
    (s) => html`<section class="suite" data-suite="${s.suiteLabel}"><h2>${s.suiteLabel}</h2>${s.groups.length > 1 ? html`<p class="small">These runs ran different task sets of this suite, so they are ranked in separate groups; pairs compare the tasks they share.</p>` : ''}${s.groups.map(rankTable)}${
      s.pairs.length ? html`<h3>Paired comparisons</h3>${pairMatrix(s)}${s.pairs.map((p) => pairSection(model, p))}` : html`<p class="muted">Only one run on this suite: nothing to pair.</p>`
    }</section>`,
  );
  const body = html`<h1>Compare runs</h1><p class="muted">Runs on the same pack version and suite, ranked and compared task by task. Figures are per run: nothing is pooled across runs or harnesses.</p>${renderRunTable(model.runs, null)}${sections}${METHOD}`;
  return renderPage({ title: 'mivas: compare runs', kind: 'compare', body, nav: navOf(model) });
}
