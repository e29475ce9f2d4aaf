import type { ConversationVerdict } from '../scoring/index.ts';
import type { TimelineEvent } from '../snapshot/index.ts';
import type { ConversationEvidence } from './evidence-loader.ts';
import { html, type SafeHtml } from './html.ts';
import type { MediaMap } from './media-map.ts';

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

/** The span the timeline draws: the recording or the last event, whichever is longer (the recording on a fast run). */
export function timelineSpanMs(v: ConversationVerdict, ev: ConversationEvidence): number {
  if (ev.media.fast && ev.peaks) return Math.max(1, ev.peaks.durationMs);
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

/**
 * Rows for point markers so none hides another: a marker closer than `gapPct` of the span to the
 * previous one in a row goes to the next row (markers keep their time; the lane grows).
 */
export function markerRows(positions: readonly number[], spanMs: number, gapPct = 1.4): number[] {
  const lastInRow: number[] = [];
  return positions.map((ms) => {
    const at = (ms / spanMs) * 100;
    let row = lastInRow.findIndex((last) => at - last >= gapPct);
    if (row < 0) row = lastInRow.length;
    lastInRow[row] = at;
    return row;
  });
}

const MARKER_ROW_PX = 14;

function stacked(items: readonly { readonly at: number; readonly render: (style: string) => SafeHtml }[], spanMs: number): { html: SafeHtml[]; height: number } {
  const order = items.map((it, i) => ({ it, i })).sort((a, b) => a.it.at - b.it.at);
  const rows = markerRows(order.map((o) => o.it.at), spanMs);
  const out = order.map((o, k) => o.it.render(`left:${pct(o.it.at, spanMs)};top:${2 + (rows[k] ?? 0) * MARKER_ROW_PX}px;height:12px`));
  return { html: out, height: Math.max(24, 4 + (Math.max(-1, ...rows) + 1) * MARKER_ROW_PX) };
}

function markers(events: readonly TimelineEvent[], spanMs: number, media: MediaMap): { html: SafeHtml[]; height: number } {
  return stacked(markerItems(events, media), spanMs);
}

function markerItems(events: readonly TimelineEvent[], media: MediaMap): { at: number; render: (style: string) => SafeHtml }[] {
  return events.flatMap((e) => {
    const at = Math.round(media.place(e.at_ms, 'agent'));
    if (e.type === 'tool' && e.kind !== 'handoff') {
      return [{ at, render: (style: string) => html`<button type="button" class="ev tool ${e.kind} ${toolOutcome(e)}" id="tl-tool-${e.seq}" data-seq="${e.seq}" data-at-ms="${at}" style="${style}" title="${toolLabel(e)}" aria-label="${toolLabel(e)}"></button>` }];
    }
    if (e.type === 'handoff') {
      const label = `seq ${e.seq} · ${seconds(e.at_ms)} · handoff ${e.from} → ${e.to}`;
      return [{ at, render: (style: string) => html`<button type="button" class="ev handoff" id="tl-handoff-${e.seq}" data-seq="${e.seq}" data-at-ms="${at}" style="${style}" title="${label}" aria-label="${label}"></button>` }];
    }
    return [];
  });
}

/** One mark on the errors lane. */
export interface ErrorMark {
  readonly event: TimelineEvent;
  readonly label: string;
  readonly severity: 'error' | 'warn';
}

/** What the errors lane marks: provider errors, failed, refused or faulted tool calls, audio gaps and resets, ignored frames, an abnormal end. */
export function errorEvents(events: readonly TimelineEvent[]): ErrorMark[] {
  return events.flatMap((e): ErrorMark[] => {
    const at = `seq ${e.seq} · ${seconds(e.at_ms)} · `;
    switch (e.type) {
      case 'provider.error':
        return [{ event: e, label: `${at}provider error ${e.code}: ${e.message}${e.fatal ? ' (fatal)' : ''}`, severity: 'error' }];
      case 'tool':
        if (e.internal_fault) return [{ event: e, label: `${at}${e.name}: internal fault ${e.internal_fault}`, severity: 'error' }];
        if (!e.executed) return [{ event: e, label: `${at}${e.name} refused ${e.refusal ?? ''} (${e.agent})`, severity: 'warn' }];
        if (e.output.ok === false) return [{ event: e, label: `${at}${e.name} returned error ${json(e.output.error_code)}`, severity: 'error' }];
        return [];
      case 'audio.underrun':
        return [{ event: e, label: `${at}agent audio gap ${e.gap_ms} ms`, severity: 'warn' }];
      case 'audio.clock_reset':
        return [{ event: e, label: `${at}audio clock reset, ${e.behind_ms} ms behind`, severity: 'warn' }];
      case 'frame.ignored':
        return [{ event: e, label: `${at}frame ignored: ${e.reason}`, severity: 'warn' }];
      case 'call.ended':
        return ['provider_error', 'internal_error', 'drain_deadline', 'max_duration'].includes(e.end_reason) ? [{ event: e, label: `${at}call ended ${e.end_reason}`, severity: 'error' }] : [];
      default:
        return [];
    }
  });
}

function errorMarkers(events: readonly TimelineEvent[], spanMs: number, media: MediaMap): { html: SafeHtml[]; height: number } {
  const items = errorEvents(events).map(({ event, label, severity }) => {
    const at = Math.round(media.place(event.at_ms, 'agent'));
    return { at, render: (style: string) => html`<button type="button" class="ev err ${severity}" id="tl-err-${event.seq}" data-seq="${event.seq}" data-at-ms="${at}" style="${style}" title="${label}" aria-label="${label}"></button>` };
  });
  return stacked(items, spanMs);
}

/** What the duplex lane marks (issue 33): each act the caller said over the agent, and each call that wrote a corrected value's stale one. */
export function duplexMarks(v: ConversationVerdict, events: readonly TimelineEvent[]): { readonly atMs: number; readonly side: 'caller' | 'agent'; readonly id: string; readonly cls: string; readonly label: string }[] {
  const checks = (v.diagnostics as ConversationVerdict['diagnostics'] | undefined)?.duplex ?? [];
  return checks.flatMap((c, i) => {
    const stop = c.agent_stopped === null ? 'agent stop unknown' : c.agent_stopped ? `agent stopped in ${Math.round(c.stop_ms ?? 0)} ms` : 'agent kept talking';
    const said = c.at_ms === null ? [] : [{ atMs: c.at_ms, side: 'caller' as const, id: `tl-duplex-${i}`, cls: c.act, label: `${seconds(c.at_ms)} · caller ${c.act.replace('_', '-')}${c.pin ? ` (pin ${c.pin})` : ''} over ${c.over_utterance_id}: ${stop}` }];
    const stale = c.stale_calls.flatMap((seq) => {
      const e = events.find((x) => x.seq === seq);
      return e?.type === 'tool' ? [{ atMs: e.at_ms, side: 'agent' as const, id: `tl-stale-${seq}`, cls: 'stale', label: `seq ${seq} · ${seconds(e.at_ms)} · stale value written after the correction: ${e.name} ${json(e.canonical_arguments ?? e.arguments)}` }] : [];
    });
    return [...said, ...stale];
  });
}

function duplexMarkers(v: ConversationVerdict, events: readonly TimelineEvent[], spanMs: number, media: MediaMap): { html: SafeHtml[]; height: number } {
  const items = duplexMarks(v, events).map((m) => {
    const at = Math.round(media.place(m.atMs, m.side));
    return { at, render: (style: string) => html`<button type="button" class="ev duplex ${m.cls}" id="${m.id}" data-at-ms="${at}" style="${style}" title="${m.label}" aria-label="${m.label}"></button>` };
  });
  return stacked(items, spanMs);
}

function lane(label: string, content: readonly SafeHtml[], cls = '', height: number | null = null): SafeHtml {
  return html`<div class="lbl">${label}</div><div class="track ${cls}"${height && height > 24 ? html` style="height:${height}px"` : ''}>${content}</div>`;
}

/**
 * The one timeline on the media clock: the recording's waveform, caller and agent speech, the
 * active specialist, handoffs and tool calls. Every lane shares one x scale (0 to `spanMs`).
 */
export function renderTimeline(v: ConversationVerdict, ev: ConversationEvidence, spanMs: number): SafeHtml {
  const events = ev.events ?? [];
  const media = ev.media;
  const wave = ev.audioHref || ev.peaks ? [lane('recording', [html`<canvas id="wave" title="click to play from here"></canvas>`], 'wave')] : [];
  if (!events.length) return html`<div class="tl" id="timeline">${wave}<div class="overlay"><div id="playhead"></div></div></div><p class="muted">No timeline in the snapshot.</p>`;
  const speech = speechSegments(events, Math.max(...events.map((e) => e.at_ms), 0)).map((s) => {
    const startMs = media.place(s.startMs, s.side);
    return { side: s.side, startMs, endMs: Math.max(startMs, media.place(s.endMs, s.side)) };
  });
  const seg = (s: SpeechSegment): SafeHtml =>
    html`<button type="button" class="seg ${s.side}" data-at-ms="${Math.round(s.startMs)}" style="left:${pct(s.startMs, spanMs)};width:${pct(Math.max(s.endMs - s.startMs, spanMs / 400), spanMs)}" title="${s.side} speech ${seconds(s.startMs)}–${seconds(s.endMs)}"></button>`;
  const entry = v.handoff?.agent_sequence[0] ?? ev.blueprint?.agents[0]?.name ?? '?';
  const bands = agentBands(events, entry, Math.max(...events.map((e) => e.at_ms), 0)).map((b, i, all) => ({ agent: b.agent, startMs: i === 0 ? 0 : media.place(b.startMs, 'agent'), endMs: i === all.length - 1 ? spanMs : media.place(b.endMs, 'agent') }));
  const names = [...new Set(bands.map((b) => b.agent))];
  const band = (b: AgentBand): SafeHtml =>
    html`<button type="button" class="band" data-at-ms="${Math.round(b.startMs)}" style="left:${pct(b.startMs, spanMs)};width:${pct(b.endMs - b.startMs, spanMs)};background:${BAND_COLOURS[names.indexOf(b.agent) % BAND_COLOURS.length] ?? '#eee'}" title="${b.agent} ${seconds(b.startMs)}–${seconds(b.endMs)}">${b.agent}</button>`;
  const ticks = Array.from({ length: 6 }, (_, i) => (spanMs * i) / 5);
  const axis = ticks.map((t, i) => html`<span class="tick" style="${i === 5 ? 'right:0' : `left:${pct(t, spanMs)}`}">${seconds(t)}</span>`);
  const errors = errorMarkers(events, spanMs, media);
  const tools = markers(events, spanMs, media);
  const duplex = duplexMarkers(v, events, spanMs, media);
  const duplexLane = duplex.html.length ? lane('duplex acts', duplex.html, '', duplex.height) : '';
  const fastNote = media.fast
    ? html`<p class="small fast-note"><b>Fast run:</b> the agent's audio was not paced, so the recording holds each side's utterances back to back and the timeline's clock is shorter. Each lane is laid on its own channel: speech where its utterance sits in the recording, tool calls, handoffs and errors after the agent utterance they follow. The axis is the recording's.</p>`
    : '';
  return html`${fastNote}<div class="tl" id="timeline">${wave}${lane('caller speech', speech.filter((s) => s.side === 'caller').map(seg))}${lane('agent speech', speech.filter((s) => s.side === 'agent').map(seg))}${lane('specialist', bands.filter((b) => b.endMs > b.startMs || bands.length === 1).map(band))}${lane('handoffs, tools', tools.html, '', tools.height)}${duplexLane}${lane(`errors (${errors.html.length})`, errors.html, 'errors', errors.height)}${lane('time', axis, 'axis')}<div class="overlay"><div id="playhead"></div></div></div>
<p class="legend small"><span>● tool call (green ok, red error, amber refused, grey session)</span><span>◆ handoff</span><span>▲ error lane: red error, amber warning</span>${duplex.html.length ? html`<span>■ duplex lane: purple a caller act over the agent, red a stale value written</span>` : ''}<span>click any event, segment or the waveform to play from there</span></p>`;
}

/** How a call that was not the model's own reached the conversation (docs/snapshot-format.md, `origin`). */
const ORIGIN_LABELS: Readonly<Record<NonNullable<ToolEvent['origin']>, string>> = {
  http: 'over HTTP',
  platform: 'executed by the platform, reported after',
  inferred: 'hop inferred by mivas in observe mode, not reported by the platform',
};

/** A note over the path graph when some hop was inferred (observe mode), not made or reported by the agent. */
export function inferredHopsNote(events: readonly TimelineEvent[] | null): SafeHtml {
  const inferred = (events ?? []).filter((e): e is ToolEvent => e.type === 'tool' && e.origin === 'inferred').map((e) => e.name);
  if (inferred.length === 0) return html``;
  return html`<p class="small"><b>Inferred hops:</b> ${inferred.join(', ')} ${inferred.length === 1 ? 'was' : 'were'} not reported by the platform: mivas inferred ${inferred.length === 1 ? 'it' : 'them'} from the specialist's first tool (observe mode, docs/platforms.md).</p>`;
}

const SKIPPED = new Set<TimelineEvent['type']>(['speech.started', 'speech.completed', 'response.done', 'mark.echo']);

function eventDetail(e: TimelineEvent): SafeHtml {
  switch (e.type) {
    case 'tool':
      return html`<b>${e.name}</b> <span class="muted">(${e.kind}, ${toolOutcome(e)}${e.refusal ? ` ${e.refusal}` : ''}${e.origin ? `, ${ORIGIN_LABELS[e.origin]}` : ''})</span><br>arguments <code>${json(e.arguments)}</code><br>output <code>${json(e.output)}</code>`;
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
    case 'agent.hangup':
      return html`the agent's side hung up`;
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
export function renderEventList(events: readonly TimelineEvent[] | null, media?: MediaMap): SafeHtml {
  const rows = (events ?? []).filter((e) => !SKIPPED.has(e.type));
  const at = (e: TimelineEvent): number => Math.round(media ? media.place(e.at_ms, e.type === 'transcript' ? e.side : 'agent') : e.at_ms);
  if (!rows.length) return html`<p class="muted">No events.</p>`;
  const who = (e: TimelineEvent): string => (e.type === 'tool' ? e.agent : e.type === 'transcript' ? e.side : '');
  return html`<table class="events"><thead><tr><th>time</th><th>seq</th><th>event</th><th>agent / side</th><th>detail</th></tr></thead><tbody>${rows.map(
    (e) => html`<tr class="ev-row ${e.type.replace('.', '-')}" id="ev-${e.seq}" data-at-ms="${at(e)}"><td class="t">▶ ${seconds(at(e))}</td><td>${e.seq}</td><td>${e.type}</td><td>${who(e)}</td><td>${eventDetail(e)}</td></tr>`,
  )}</tbody></table>`;
}

/** One line of the two-sided transcript. */
export interface TranscriptLine {
  readonly atMs: number;
  readonly side: 'caller' | 'agent';
  readonly text: string;
  /** Where the words come from when not the timeline: the caller's record, the task's opening line, or nothing recorded. */
  readonly source: 'timeline' | 'caller record' | 'task opening line' | 'none';
}

/**
 * Both sides of the conversation in time order: the timeline's transcripts, and for every caller
 * utterance without one, its words from the caller's record (by utterance id, else in order), or
 * for a scripted caller's first line the task's opening line.
 */
export function transcriptLines(events: readonly TimelineEvent[], caller: ConversationEvidence['caller'], opening: string | null): TranscriptLine[] {
  const lines: TranscriptLine[] = events.flatMap((e) => (e.type === 'transcript' ? [{ atMs: e.at_ms, side: e.side, text: e.text, source: 'timeline' }] : []));
  if (lines.some((l) => l.side === 'caller')) return lines;
  const starts = events.flatMap((e) => (e.type === 'speech.started' && e.side === 'caller' ? [e] : []));
  const turns = caller?.turns ?? [];
  const byId = new Map(turns.flatMap((t) => (t.utteranceId ? [[t.utteranceId, t] as const] : [])));
  starts.forEach((e, i) => {
    const turn = byId.get(e.utterance_id) ?? (byId.size ? undefined : turns[i]);
    if (turn) lines.push({ atMs: e.at_ms, side: 'caller', text: turn.text, source: 'caller record' });
    else if (i === 0 && opening && (!caller || caller.kind === 'scripted')) lines.push({ atMs: e.at_ms, side: 'caller', text: opening, source: 'task opening line' });
    else lines.push({ atMs: e.at_ms, side: 'caller', text: '(caller speech; no words recorded)', source: 'none' });
  });
  return lines.sort((a, b) => a.atMs - b.atMs);
}

/** The transcript with each line on the media clock (click to play), or the scorer's text when there is no timeline. */
export function renderTranscript(v: ConversationVerdict, events: readonly TimelineEvent[] | null, caller: ConversationEvidence['caller'] = null, opening: string | null = null, media?: MediaMap): SafeHtml {
  const lines = transcriptLines(events ?? [], caller, opening);
  if (!lines.length) return html`<pre>${v.evidence.transcript || '(none)'}</pre>`;
  return html`<table class="transcript"><tbody>${lines.map((l) => {
    const at = Math.round(media ? media.place(l.atMs, l.side) : l.atMs);
    return html`<tr data-at-ms="${at}" class="${l.side}"><td class="t">▶ ${seconds(at)}</td><td><b>${l.side}</b></td><td>${l.text}${l.source === 'timeline' ? '' : html` <span class="small muted">(${l.source})</span>`}</td></tr>`;
  })}</tbody></table>`;
}
