import { staleUsed, type ConversationVerdict, type DuplexCheck } from '../scoring/index.ts';
import type { Summary } from '../snapshot/index.ts';
import type { ConversationEvidence } from './evidence-loader.ts';
import { formatRate } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { jsonScript, renderPage } from './page-shell.ts';
import { renderPathGraph } from './path-graph.ts';
import { renderStateDiff } from './state-diff-view.ts';
import { inferredHopsNote, renderEventList, renderTimeline, renderTranscript, timelineSpanMs } from './timeline-view.ts';
import { renderToolDiff } from './tool-diff-view.ts';
import type { TaskInfo } from './task-info.ts';
import { failingGates, taskHref, type Entry } from './ui-model.ts';
import { taskSlug } from './task-info.ts';
import { PLAYER_SCRIPT } from './ui-scripts.ts';

/** What a conversation page shows from the rest of the site: its run and its task. */
export interface ConversationContext {
  readonly entry?: Entry | null;
  readonly taskInfo?: TaskInfo | null;
  readonly nav?: { readonly compare: boolean; readonly flips: boolean };
}

function header(v: ConversationVerdict, ctx: ConversationContext, ev: ConversationEvidence): SafeHtml {
  const why = v.status === 'VOID' ? `void: ${v.void_reason ?? ''}${v.void_detail.length ? ` (${v.void_detail.join('; ')})` : ''}` : v.status === 'UNMAPPED' ? `unmapped: ${v.unmapped_reason ?? ''}` : v.status === 'FAIL' ? `failed gates: ${failingGates(v).join(', ')}` : '';
  const task = v.task_id ? html`<a href="${taskHref(taskSlug(v.pack, v.task_id))}">${v.task_id}</a>` : '(no task)';
  return html`<h1><span class="st-${v.status.toLowerCase()}" id="status">${v.status}</span> ${v.conversation_id}</h1>
${ctx.entry ? html`<p class="run-line">run <b>${ctx.entry.label}</b> <span class="muted small">${ctx.entry.run.run_id} · caller ${ev.caller?.kind ?? ctx.entry.run.caller.kind}${ev.caller?.seed !== undefined && ev.caller?.seed !== null ? ` seed ${ev.caller.seed}` : ''}</span></p>` : ''}${ctx.taskInfo ? html`<p class="small">${ctx.taskInfo.title}: ${ctx.taskInfo.measures}</p>` : ''}
<p>task ${task}${v.trial_index ? ` · trial #${v.trial_index}` : ''} · pack ${v.pack}@${v.pack_version ?? '?'} · ${v.harness ?? '-'}/${v.model ?? '-'} · reward ${formatRate(v.reward)} · ${v.duration_s === null ? '' : `${v.duration_s.toFixed(1)} s · `}end ${v.end_reason ?? '—'}${v.pack_drift ? ' · pack drift' : ''}</p>
${why ? html`<p class="st-${v.status.toLowerCase()}"><b>${why}</b></p>` : ''}${v.fail_reasons.length ? html`<ul class="reasons">${v.fail_reasons.map((r) => html`<li>${r}</li>`)}</ul>` : ''}`;
}

function player(ev: ConversationEvidence): SafeHtml {
  if (!ev.audioHref) return html`<p class="muted">${ev.peaks ? 'The recording is not included in this export (--audio none).' : 'No recording in the snapshot.'}</p>${ev.peaks ? jsonScript('wave-data', ev.peaks) : ''}`;
  return html`<div class="player"><audio id="audio" controls preload="auto" src="${ev.audioHref}"></audio></div>${jsonScript('wave-data', ev.peaks)}`;
}

const SMOKE: readonly (readonly [string, (s: Summary['smoke']) => boolean | null, (s: Summary['smoke']) => string])[] = [
  ['both sides spoke', (s) => s.both_sides_spoke, () => ''],
  ['tool calls recorded when expected', (s) => s.tools_recorded, () => ''],
  ['trace id present', (s) => s.trace_id_present, () => ''],
  ['dead air ≤ 25 s', (s) => s.dead_air_ok, (s) => `longest ${s.dead_air_max_s.toFixed(2)} s`],
  ['clean outbound audio', (s) => s.clean_audio, (s) => `${s.outbound_dropouts} dropouts, ${s.clipping_events} clipping`],
  ['first agent audio ≤ 3 s', (s) => s.first_audio_ok, (s) => (s.first_agent_audio_ms === null ? 'none' : `${Math.round(s.first_agent_audio_ms)} ms`)],
];

function smoke(v: ConversationVerdict, summary: Summary | null): SafeHtml {
  if (!summary) return html`<p>smoke ${v.quality.smoke_pass === null ? 'unknown' : v.quality.smoke_pass ? 'pass' : 'fail'}${v.quality.smoke_failed.length ? `; failed: ${v.quality.smoke_failed.join(', ')}` : ''}</p>`;
  const mark = (ok: boolean | null): SafeHtml => (ok === null ? html`<span class="na">n/a</span>` : ok ? html`<span class="ok">✓ pass</span>` : html`<span class="bad">✗ fail</span>`);
  return html`<table class="smoke"><thead><tr><th>check</th><th>result</th><th>figure</th></tr></thead><tbody>${SMOKE.map(([name, ok, figure]) => html`<tr><td>${name}</td><td>${mark(ok(summary.smoke))}</td><td>${figure(summary.smoke)}</td></tr>`)}<tr><th>rubric</th><th>${mark(summary.smoke.pass)}</th><th></th></tr></tbody></table>
<p class="small muted">Health signals beside the verdict, never read by it (scoring.md §10). Response latency p50 ${v.quality.latency_p50_ms ?? '—'} ms, p95 ${v.quality.latency_p95_ms ?? '—'} ms.</p>`;
}

/** The conversation's diagnostics (scoring.md §10.1): latency per turn, barge-in stops, duplex acts, said-aloud, transcript quality, judge. */
function diagnostics(v: ConversationVerdict): SafeHtml {
  // scores.json written before scorer 1.2.0 carries no diagnostics.
  const d = v.diagnostics as ConversationVerdict['diagnostics'] | undefined;
  if (!d) return html`<p class="small muted">Not recorded: these scores come from a scorer older than 1.2.0.</p>`;
  const checks = d.said_aloud.map((c) => html`<tr><td>${c.tool}</td><td>${c.key}</td><td>${String(c.value)}</td><td>${c.said ? html`<span class="ok">✓ said</span>` : html`<span class="bad">✗ not said</span>`}</td></tr>`);
  const judge = d.judge ? Object.entries(d.judge.scores).map(([c, n]) => `${c} ${n}/5`).join(', ') + ` (${d.judge.model}, ${d.judge.prompt_version})` : 'absent (no judge ran)';
  return html`<p class="small">response latency per turn: ${d.turn_latencies_ms.length ? d.turn_latencies_ms.map((n) => `${Math.round(n)} ms`).join(', ') : '—'} · barge-in stop: ${d.barge_in_stops_ms.length ? d.barge_in_stops_ms.map((n) => `${Math.round(n)} ms`).join(', ') : '—'} · transcript WER: ${d.transcript_wer ?? '—'} · judge: ${judge}</p>
${duplexTable(d.duplex ?? [])}${checks.length ? html`<div class="scroll"><table class="said-aloud"><thead><tr><th>tool</th><th>field</th><th>value</th><th>said aloud</th></tr></thead><tbody>${checks}</tbody></table></div>` : html`<p class="small muted">No answer the caller asked for to check.</p>`}
<p class="small muted">Diagnostics beside the verdict, never read by it (scoring.md §10.1).</p>`;
}

/** The duplex acts the caller said over the agent, and what the agent did (docs/caller.md); nothing when there were none. */
function duplexTable(checks: readonly DuplexCheck[]): SafeHtml | string {
  if (!checks.length) return '';
  const stopped = (c: DuplexCheck): string => (c.agent_stopped === null ? 'unknown' : c.agent_stopped ? `stopped in ${Math.round(c.stop_ms ?? 0)} ms` : 'kept talking');
  const stale = (c: DuplexCheck): SafeHtml | string => (c.act !== 'correction' ? '—' : staleUsed(c) ? html`<span class="bad">✗ stale value used${c.stale_calls.length ? ` (call seq ${c.stale_calls.join(', ')})` : ''}${c.stale_in_state ? ' (final state)' : ''}</span>` : html`<span class="ok">✓ not used</span>`);
  return html`<div class="scroll"><table class="duplex"><thead><tr><th>caller act</th><th>pin</th><th>over</th><th>agent audio</th><th>stale value</th></tr></thead><tbody>${checks.map((c) => html`<tr id="duplex-${c.caller_utterance_id ?? ''}"><td>${c.act.replace('_', '-')}</td><td>${c.pin ?? '—'}</td><td>${c.over_utterance_id}</td><td>${stopped(c)}</td><td>${stale(c)}</td></tr>`)}</tbody></table></div>`;
}

function usage(v: ConversationVerdict, summary: Summary | null): SafeHtml {
  const cost = v.cost.cost_usd_est === null ? (v.cost.cost_note ?? 'not priced') : `$${v.cost.cost_usd_est.toFixed(4)}`;
  const rows = summary ? Object.entries(summary.usage) : [['input_tokens', v.cost.input_tokens], ['output_tokens', v.cost.output_tokens]];
  return html`<table class="usage"><tbody>${rows.map(([k, n]) => html`<tr><td>${k}</td><td>${n ?? '—'}</td></tr>`)}<tr><th>estimated cost</th><th>${cost}</th></tr><tr><td>price table</td><td>${v.cost.price_table_version ?? '—'}</td></tr></tbody></table>`;
}

function links(v: ConversationVerdict, ev: ConversationEvidence): SafeHtml {
  return html`<p class="small muted">snapshot ${v.evidence.snapshot_uri ?? '—'}${ev.audioHref ? html` · <a href="${ev.audioHref}" download>download the recording</a>` : ''}${v.evidence.trace_id ? ` · trace ${v.evidence.trace_id}` : ''}</p>`;
}

function section(id: string, title: string, body: SafeHtml): SafeHtml {
  return html`<section id="${id}" class="panel"><h2>${title}</h2>${body}</section>`;
}

/** One conversation's evidence: recording, timeline, tool, path and state diffs, transcript, smoke and cost. */
export function renderConversationPage(v: ConversationVerdict, ev: ConversationEvidence, ctx: ConversationContext = {}): string {
  const spanMs = timelineSpanMs(v, ev);
  const body = html`${header(v, ctx, ev)}${links(v, ev)}
${section('recording', 'Recording and timeline', html`${player(ev)}${renderTimeline(v, ev, spanMs)}`)}
${section('tools', 'Tool calls: expected vs actual', renderToolDiff(v.tools, ev.events, ev.media))}
${section('handoff', 'Handoff path: expected vs actual', html`${inferredHopsNote(ev.events)}${renderPathGraph(v.handoff, ev.blueprint)}`)}
${section('state', 'Database diff (tables that differ)', renderStateDiff(v.state))}
${section('transcript', 'Transcript: both sides', renderTranscript(v, ev.events, ev.caller, ctx.taskInfo?.opening ?? null, ev.media))}
${section('events', 'Events', renderEventList(ev.events, ev.media))}
${section('smoke', 'Smoke rubric', smoke(v, ev.summary))}
${section('diagnostics', 'Diagnostics', diagnostics(v))}
${section('usage', 'Usage and cost', usage(v, ev.summary))}`;
  // The span rides on <body> so the player maps clicks and the playhead on the same scale as the drawn timeline.
  return renderPage({ title: `mivas ${v.status} ${v.conversation_id}`, kind: 'conversation', body, scripts: [PLAYER_SCRIPT], data: { 'duration-ms': Math.round(spanMs) }, ...(ctx.nav ? { nav: ctx.nav } : {}) });
}
