import { z } from 'zod';
import type { ActualCall, MatcherFailure, MissingCall, ToolGateResult } from '../scoring/index.ts';
import type { TimelineEvent } from '../snapshot/index.ts';
import { formatRate } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import type { MediaMap } from './media-map.ts';
import { seconds } from './timeline-view.ts';

type Place = (ms: number) => number;

const expectedCallSchema = z.object({ name: z.string(), parameters: z.record(z.string(), z.unknown()).optional(), output: z.unknown().optional() });

type ExpectedCall = z.infer<typeof expectedCallSchema>;

const json = (v: unknown): string => JSON.stringify(v ?? null);

function parseExpected(list: readonly unknown[]): ExpectedCall[] {
  return list.map((raw) => {
    const parsed = expectedCallSchema.safeParse(raw);
    return parsed.success ? parsed.data : { name: '(unreadable)', parameters: undefined, output: raw };
  });
}

/** One failing matcher: argument, expected vs actual, why and under which rule. */
export function renderFailure(f: MatcherFailure): SafeHtml {
  return html`<span class="arg-fail" data-argument="${f.argument}"><b>${f.argument}</b>: expected <code class="exp">${json(f.expected)}</code> got <code class="act">${json(f.actual)}</code> <span class="muted">(${f.reason}; rule ${f.rule})</span></span>`;
}

function params(p: Readonly<Record<string, unknown>> | undefined): SafeHtml {
  if (!p || !Object.keys(p).length) return html`<span class="muted">(name only)</span>`;
  return html`${Object.entries(p).map(([k, val]) => html`<div><b>${k}</b> <code>${json(val)}</code></div>`)}`;
}

/**
 * The actual arguments as a diff against the expected parameters: one row per argument, the
 * expected matcher and the actual canonical value, ✗ where a matcher failed (with its reason),
 * and `+` for arguments the task does not constrain.
 */
export function renderArgDiff(expected: Readonly<Record<string, unknown>> | undefined, actual: Readonly<Record<string, unknown>> | null, failures: readonly MatcherFailure[] = []): SafeHtml {
  const exp = expected ?? {};
  const act = actual ?? {};
  const failed = new Map(failures.map((f) => [f.argument, f]));
  const names = [...new Set([...Object.keys(exp), ...Object.keys(act), ...failures.map((f) => f.argument).filter((a) => !a.startsWith('output'))])];
  if (!names.length) return html`<span class="muted small">no arguments</span>`;
  const rows = names.map((name) => {
    const f = failed.get(name);
    const constrained = name in exp;
    const cls = f ? 'arg-bad' : constrained ? 'arg-ok' : 'arg-extra';
    const mark = f ? html`<b class="bad">✗</b>` : constrained ? html`<span class="ok">✓</span>` : html`<span class="muted">+</span>`;
    return html`<tr class="${cls}" data-argument="${name}"><td>${mark}</td><td><b>${name}</b></td><td>${constrained ? html`<code class="exp">${json(exp[name])}</code>` : html`<span class="muted small">not constrained</span>`}</td><td>${name in act ? html`<code class="act">${json(act[name])}</code>` : html`<span class="muted small">(absent)</span>`}${f ? html`<div class="small muted">${f.reason}; rule ${f.rule}</div>` : ''}</td></tr>`;
  });
  const outputFailures = failures.filter((f) => f.argument.startsWith('output') || !(f.argument in exp || f.argument in act));
  return html`<table class="arg-diff"><thead><tr><th></th><th>argument</th><th>expected</th><th>actual</th></tr></thead><tbody>${rows}</tbody></table>${outputFailures.filter((f) => !names.includes(f.argument)).map(renderFailure)}`;
}

function actualCell(call: ActualCall | undefined, outputs: ReadonlyMap<number, unknown>, expected: ExpectedCall, place: Place): SafeHtml {
  if (!call) return html``;
  return html`<div class="t" data-at-ms="${place(call.at_ms)}">▶ seq ${call.seq} · ${seconds(place(call.at_ms))} · ${call.agent}</div>${renderArgDiff(expected.parameters, call.canonical_arguments)}<div class="small">output <code>${json(outputs.get(call.seq) ?? { ok: call.ok, error_code: call.error_code })}</code></div>`;
}

function missingCell(m: MissingCall, t: ToolGateResult, expected: ExpectedCall): SafeHtml {
  if (m.never_called || !m.candidates.length) return html`<b class="bad">never called</b>`;
  return html`${m.candidates.map((c) => {
    const call = t.actual_calls.find((a) => a.seq === c.seq);
    return html`<div class="candidate">candidate seq ${c.seq} (${c.agent}): ${c.used_by !== null ? html`<span class="muted">compatible, but used by expected #${c.used_by}</span>` : html`${renderArgDiff(expected.parameters, call?.canonical_arguments ?? null, c.failures)}`}</div>`;
  })}`;
}

function expectedRow(e: ExpectedCall, index: number, t: ToolGateResult, outputs: ReadonlyMap<number, unknown>, place: Place): SafeHtml {
  const match = t.matched.find((m) => m.expected === index);
  const missing = t.missing.find((m) => m.index === index);
  const actual = match ? t.actual_calls.find((a) => a.seq === match.seq) : undefined;
  return html`<tr class="${match ? 'matched' : 'unmatched'}" data-expected="${index}"><td>#${index}</td><td><b>${e.name}</b></td><td>${params(e.parameters)}</td><td><code>${json(e.output ?? { ok: true })}</code></td><td>${match ? html`<span class="ok">matched</span>` : html`<span class="bad">unmatched</span>`}</td><td>${match ? actualCell(actual, outputs, e, place) : missing ? missingCell(missing, t, e) : ''}</td></tr>`;
}

function roleOf(a: ActualCall, t: ToolGateResult): string {
  const m = t.matched.find((x) => x.seq === a.seq);
  if (m) return `matches expected #${m.expected}`;
  if (t.forbidden.some((f) => f.seq === a.seq)) return 'FORBIDDEN';
  if (t.scope_violations.some((s) => s.seq === a.seq)) return 'SCOPE VIOLATION';
  if (t.scope_refusals.some((s) => s.seq === a.seq)) return 'refused out of scope (diagnostic)';
  if (a.kind === 'handoff') return 'handoff (judged by the path)';
  return t.extra.some((x) => x.seq === a.seq) ? 'extra (allowed)' : '';
}

function actualRow(a: ActualCall, t: ToolGateResult, outputs: ReadonlyMap<number, unknown>, place: Place): SafeHtml {
  const outcome = a.executed ? (a.ok === false ? `error ${a.error_code ?? ''}` : 'ok') : `refused ${a.refusal ?? ''}`;
  return html`<tr data-at-ms="${place(a.at_ms)}" data-seq="${a.seq}" class="actual ${a.kind}"><td class="t">▶ ${seconds(place(a.at_ms))}</td><td>${a.seq}</td><td>${a.agent}</td><td><b>${a.name}</b> <span class="muted">${a.kind}</span></td><td><code>${json(a.canonical_arguments)}</code></td><td>${outcome}<br><code>${json(outputs.get(a.seq))}</code></td><td>${roleOf(a, t)}</td></tr>`;
}

/** Expected vs actual tool calls: matches, per-argument and output differences, extras, forbidden and scope findings. */
export function renderToolDiff(t: ToolGateResult | null, events: readonly TimelineEvent[] | null, media?: MediaMap): SafeHtml {
  const place: Place = (ms) => Math.round(media ? media.place(ms, 'agent') : ms);
  if (!t) return html`<p class="muted">Tool gate not run (conversation not scored).</p>`;
  const outputs = new Map<number, unknown>((events ?? []).flatMap((e) => (e.type === 'tool' ? [[e.seq, e.output] as const] : [])));
  const expected = parseExpected(t.expected_calls);
  const notes = [
    ...t.forbidden.map((f) => `forbidden: ${f.name} called by ${f.agent} (seq ${f.seq}${f.executed ? '' : ', refused'})`),
    ...t.scope_violations.map((s) => `scope: ${s.name} executed by ${s.agent}; owners: ${s.owners.join(', ')}`),
  ];
  return html`<div class="tool-diff"><p><span class="badge ${t.pass ? 'pass' : 'fail'}">tools ${t.pass ? 'pass' : 'FAIL'}</span> matched ${t.matched.length} of ${expected.length} · score ${formatRate(t.score)}</p>${notes.length ? html`<ul class="bad">${notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
<h3>Expected calls</h3>${expected.length ? html`<table class="expected-calls"><thead><tr><th>#</th><th>tool</th><th>parameters</th><th>output</th><th>result</th><th>actual call or nearest candidates</th></tr></thead><tbody>${expected.map((e, i) => expectedRow(e, i + 1, t, outputs, place))}</tbody></table>` : html`<p class="muted">None expected.</p>`}
<h3>Actual calls</h3>${t.actual_calls.length ? html`<table class="actual-calls"><thead><tr><th>time</th><th>seq</th><th>agent</th><th>tool</th><th>canonical arguments</th><th>outcome / output</th><th>role</th></tr></thead><tbody>${t.actual_calls.map((a) => actualRow(a, t, outputs, place))}</tbody></table>` : html`<p class="muted">No tool calls.</p>`}</div>`;
}
