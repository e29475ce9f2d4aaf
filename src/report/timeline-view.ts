import type { ConversationVerdict } from '../scoring/index.ts';
import type { TimelineEvent } from '../snapshot/index.ts';
import type { ConversationEvidence } from './evidence-loader.ts';
import { html, type SafeHtml } from './html.ts';

type ToolEvent = Extract<TimelineEvent, { type: 'tool' }>;

/** A stretch of speech by one side on the media clock. */
export interface SpeechSegment {
  readonly side: 'caller' | 'agent';
  readonly startMs: number;
  readonly endMs: number;
}

/** A stretch during which one specialist was active. */
export interface AgentBand {
  readonly agent: string;
  readonly startMs: number;
  readonly endMs: number;
}

const json = (v: unknown): string => JSON.stringify(v ?? null);
const BAND_COLOURS = ['#ddf4ff', '#fbefff', '#dafbe1', '#fff8c5', '#ffebe9', '#eaeef2'];

/** Seconds with two decimals, the label every event carries. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** The span the timeline draws: the recording or the last event, whichever is longer. */
export function timelineSpanMs(v: ConversationVerdict, ev: ConversationEvidence): number {
  const last = Math.max(0, ...(ev.events ?? []).map((e) => e.at_ms));
  return Math.max(1, ev.peaks?.durationMs ?? 0, last, ev.events ? 0 : (v.duration_s ?? 0) * 1000);
}

/** Pairs speech.started and speech.completed by utterance; an unfinished one runs to the end. */
export function speechSegments(events: readonly TimelineEvent[], endMs: number): SpeechSegment[] {
  const open = new Map<string, { side: 'caller' | 'agent'; startMs: number }>();
  const out: SpeechSegment[] = [];
  for (const e of events) {
    if (e.type === 'speech.started') open.set(e.utterance_id, { side: e.side, startMs: e.at_ms });
    if (e.type === 'speech.completed') {
      const start = open.get(e.utterance_id);
      open.delete(e.utterance_id);
      if (start) out.push({ ...start, endMs: Math.max(e.at_ms, start.startMs) });
    }
  }
  for (const s of open.values()) out.push({ ...s, endMs });
  return out.sort((a, b) => a.startMs - b.startMs);
}

/** The active specialist over time: the entry agent, then each applied handoff's target. */
export function agentBands(events: readonly TimelineEvent[], entry: string, endMs: number): AgentBand[] {
  const bands: AgentBand[] = [];
  let current = { agent: entry, startMs: 0 };
  for (const e of events) {
    if (e.type !== 'handoff') continue;
    bands.push({ ...current, endMs: e.at_ms });
    current = { agent: e.to, startMs: e.at_ms };
  }
  bands.push({ ...current, endMs });
  return bands.filter((b) => b.endMs > b.startMs || bands.length === 1);
}

function pct(ms: number, spanMs: number): string {
  return `${Math.min(100, Math.max(0, (ms / spanMs) * 100)).toFixed(3)}%`;
}

/** How a tool call ended: ok, error (ok:false) or refused (never executed). */
export function toolOutcome(e: ToolEvent): 'ok' | 'error' | 'refused' {
  if (!e.executed) return 'refused';
  return e.output.ok === false ? 'error' : 'ok';
}

function toolLabel(e: ToolEvent): string {
  const outcome = toolOutcome(e);
  const detail = outcome === 'refused' ? `refused ${e.refusal ?? ''}` : outcome === 'error' ? `error ${json(e.output.error_code)}` : 'ok';
  return `seq ${e.seq} · ${seconds(e.at_ms)} · ${e.agent}: ${e.name} ${json(e.canonical_arguments ?? e.arguments)} → ${detail}`;
}

function markers(events: readonly TimelineEvent[], spanMs: number): SafeHtml[] {
  return events.flatMap((e) => {
    if (e.type === 'tool' && e.kind !== 'handoff') {
      return [html`<button type="button" class="ev tool ${e.kind} ${toolOutcome(e)}" id="tl-tool-${e.seq}" data-seq="${e.seq}" data-at-ms="${e.at_ms}" style="left:${pct(e.at_ms, spanMs)}" title="${toolLabel(e)}" aria-label="${toolLabel(e)}"></button>`];
    }
    if (e.type === 'handoff') {
      const label = `seq ${e.seq} · ${seconds(e.at_ms)} · handoff ${e.from} → ${e.to}`;
      return [html`<button type="button" class="ev handoff" id="tl-handoff-${e.seq}" data-seq="${e.seq}" data-at-ms="${e.at_ms}" style="left:${pct(e.at_ms, spanMs)}" title="${label}" aria-label="${label}"></button>`];
    }
    return [];
  });
}

function lane(label: string, content: readonly SafeHtml[], cls = ''): SafeHtml {
  return html`<div class="lbl">${label}</div><div class="track ${cls}">${content}</div>`;
}

/**
 * The one timeline on the media clock: the recording's waveform, caller and agent speech, the
 * active specialist, handoffs and tool calls. Every lane shares one x scale (0 to `spanMs`).
 */
export function renderTimeline(v: ConversationVerdict, ev: ConversationEvidence, spanMs: number): SafeHtml {
  const events = ev.events ?? [];
  const wave = ev.audioHref ? [lane('recording', [html`<canvas id="wave" title="click to play from here"></canvas>`], 'wave')] : [];
  if (!events.length) return html`<div class="tl" id="timeline">${wave}<div class="overlay"><div id="playhead"></div></div></div><p class="muted">No timeline in the snapshot.</p>`;
  const speech = speechSegments(events, spanMs);
  const seg = (s: SpeechSegment): SafeHtml =>
    html`<button type="button" class="seg ${s.side}" data-at-ms="${s.startMs}" style="left:${pct(s.startMs, spanMs)};width:${pct(Math.max(s.endMs - s.startMs, spanMs / 400), spanMs)}" title="${s.side} speech ${seconds(s.startMs)}–${seconds(s.endMs)}"></button>`;
  const entry = v.handoff?.agent_sequence[0] ?? ev.blueprint?.agents[0]?.name ?? '?';
  const bands = agentBands(events, entry, spanMs);
  const names = [...new Set(bands.map((b) => b.agent))];
  const band = (b: AgentBand): SafeHtml =>
    html`<button type="button" class="band" data-at-ms="${b.startMs}" style="left:${pct(b.startMs, spanMs)};width:${pct(b.endMs - b.startMs, spanMs)};background:${BAND_COLOURS[names.indexOf(b.agent) % BAND_COLOURS.length] ?? '#eee'}" title="${b.agent} ${seconds(b.startMs)}–${seconds(b.endMs)}">${b.agent}</button>`;
  const ticks = Array.from({ length: 6 }, (_, i) => (spanMs * i) / 5);
  const axis = ticks.map((t, i) => html`<span class="tick" style="${i === 5 ? 'right:0' : `left:${pct(t, spanMs)}`}">${seconds(t)}</span>`);
  return html`<div class="tl" id="timeline">${wave}${lane('caller speech', speech.filter((s) => s.side === 'caller').map(seg))}${lane('agent speech', speech.filter((s) => s.side === 'agent').map(seg))}${lane('specialist', bands.map(band))}${lane('handoffs, tools', markers(events, spanMs))}${lane('time', axis, 'axis')}<div class="overlay"><div id="playhead"></div></div></div>
<p class="legend small"><span>● tool call (green ok, red error, amber refused, grey session)</span><span>◆ handoff</span><span>click any event, segment or the waveform to play from there</span></p>`;
}

const SKIPPED = new Set<TimelineEvent['type']>(['speech.started', 'speech.completed', 'response.done', 'mark.echo']);

function eventDetail(e: TimelineEvent): SafeHtml {
  switch (e.type) {
    case 'tool':
      return html`<b>${e.name}</b> <span class="muted">(${e.kind}, ${toolOutcome(e)}${e.refusal ? ` ${e.refusal}` : ''})</span><br>arguments <code>${json(e.arguments)}</code><br>output <code>${json(e.output)}</code>`;
    case 'handoff':
      return html`${e.from} → ${e.to}`;
    case 'transcript':
      return html`${e.side}: ${e.text}`;
    case 'call.started':
      return html`task ${e.task_id ?? '—'} · harness ${e.harness}`;
    case 'call.ended':
      return html`${e.end_reason}${e.close_code === null ? '' : ` (close ${e.close_code})`}`;
    case 'provider.error':
      return html`${e.code}: ${e.message}${e.fatal ? ' (fatal)' : ''}`;
    case 'item.injected':
      return html`${e.role}: ${e.text}`;
    case 'nudge':
      return html`attempt ${e.attempt}`;
    case 'barge_in':
      return html`after ${e.played_ms} ms played`;
    case 'audio.underrun':
      return html`gap ${e.gap_ms} ms`;
    case 'audio.clock_reset':
      return html`${e.behind_ms} ms behind: the utterance's clock restarted`;
    case 'provider.ready':
      return html`connected in ${Math.round(e.connect_ms)} ms`;
    case 'response.first_audio':
      return html`first audio ${Math.round(e.ttft_ms)} ms after the request or the caller's last word`;
    case 'frame.ignored':
      return html`${e.reason}`;
    default:
      return html``;
  }
}

/** Every meaningful event as a clickable row (speech edges and provider bookkeeping left out). */
export function renderEventList(events: readonly TimelineEvent[] | null): SafeHtml {
  const rows = (events ?? []).filter((e) => !SKIPPED.has(e.type));
  if (!rows.length) return html`<p class="muted">No events.</p>`;
  const who = (e: TimelineEvent): string => (e.type === 'tool' ? e.agent : e.type === 'transcript' ? e.side : '');
  return html`<table class="events"><thead><tr><th>time</th><th>seq</th><th>event</th><th>agent / side</th><th>detail</th></tr></thead><tbody>${rows.map(
    (e) => html`<tr class="ev-row ${e.type.replace('.', '-')}" id="ev-${e.seq}" data-at-ms="${e.at_ms}"><td class="t">▶ ${seconds(e.at_ms)}</td><td>${e.seq}</td><td>${e.type}</td><td>${who(e)}</td><td>${eventDetail(e)}</td></tr>`,
  )}</tbody></table>`;
}

/** The transcript with each line on the media clock (click to play), or the scorer's text when there is no timeline. */
export function renderTranscript(v: ConversationVerdict, events: readonly TimelineEvent[] | null): SafeHtml {
  const lines = (events ?? []).flatMap((e) => (e.type === 'transcript' ? [e] : []));
  if (!lines.length) return html`<pre>${v.evidence.transcript || '(none)'}</pre>`;
  return html`<table class="transcript"><tbody>${lines.map((e) => html`<tr data-at-ms="${e.at_ms}" class="${e.side}"><td class="t">▶ ${seconds(e.at_ms)}</td><td><b>${e.side}</b></td><td>${e.text}</td></tr>`)}</tbody></table>`;
}
