import type { ConversationVerdict, MissingCall, StateDiffEntry } from '../scoring/index.ts';
import { formatRate } from './format.ts';
import { html, htmlTable, type SafeHtml } from './html.ts';

const json = (v: unknown): string => JSON.stringify(v ?? null);

function stateDiff(diff: readonly StateDiffEntry[]): SafeHtml {
  if (!diff.length) return html`<p>State: no differences.</p>`;
  const rows = diff.map((d) => [d.table, d.kind + (d.allowed ? ' (allowed)' : ''), json(d.key), d.field ?? '—', json(d.expected), json(d.actual), d.rule + (d.unparsed ? ', unparsed' : '')]);
  return htmlTable(['table', 'kind', 'key', 'field', 'expected', 'actual', 'rule'], rows, 'diff');
}

function missingCalls(missing: readonly MissingCall[]): SafeHtml {
  if (!missing.length) return html``;
  const rows = missing.flatMap((m) =>
    m.never_called || !m.candidates.length
      ? [[`#${m.index} ${m.name}`, '—', 'never called']]
      : m.candidates.map((c) => [
          `#${m.index} ${m.name}`,
          `seq ${c.seq} (${c.agent})`,
          c.used_by !== null ? `used by expected #${c.used_by}` : c.failures.map((f) => `${f.argument}: ${f.reason}, expected ${json(f.expected)}, got ${json(f.actual)} (${f.rule})`).join('; '),
        ]),
  );
  return html`<h4>Unmatched expected calls</h4>${htmlTable(['expected', 'candidate', 'reason'], rows, 'diff')}`;
}

function toolsSection(v: ConversationVerdict): SafeHtml {
  const t = v.tools;
  if (!t) return html``;
  const calls = t.actual_calls.map((a) => [String(a.seq), String(a.at_ms), a.agent, a.name, a.kind, a.executed ? (a.ok ? 'ok' : `error ${a.error_code ?? ''}`) : `refused ${a.refusal ?? ''}`, json(a.canonical_arguments)]);
  const notes = [
    ...t.forbidden.map((f) => `forbidden: ${f.name} by ${f.agent} (seq ${f.seq})`),
    ...t.scope_violations.map((s) => `scope: ${s.name} executed by ${s.agent}; owners: ${s.owners.join(', ')}`),
    ...t.scope_refusals.map((s) => `refused out-of-scope attempt: ${s.name} by ${s.agent} (diagnostic)`),
    ...t.extra.map((e) => `extra: ${e.name} by ${e.agent} (seq ${e.seq})`),
  ];
  return html`<h4>Tools: ${t.pass ? 'pass' : 'FAIL'} (score ${formatRate(t.score)})</h4>${missingCalls(t.missing)}<ul>${notes.map((n) => html`<li>${n}</li>`)}</ul>${htmlTable(['seq', 'at ms', 'agent', 'tool', 'kind', 'outcome', 'canonical arguments'], calls, 'calls')}`;
}

function handoffSection(v: ConversationVerdict): SafeHtml {
  const h = v.handoff;
  if (!h) return html``;
  return html`<h4>Handoff: ${h.verdict} (${h.pass ? 'pass' : 'FAIL'})</h4><p>expected: ${h.expected_path.join(' > ') || '(none)'}<br>actual: ${h.actual_path.join(' > ') || '(none)'}<br>agents: ${h.agent_sequence.join(' → ')}${
    h.first_unmatched ? html`<br>first unmatched hop: ${h.first_unmatched}` : ''
  }${h.transfer_refusals.length ? html`<br>refused transfers: ${h.transfer_refusals.map((r) => `${r.name}@${r.agent}`).join(', ')}` : ''}</p>`;
}

function links(v: ConversationVerdict, root: string | null): SafeHtml {
  const href = (key: string): string => (root ? `${root.replace(/\/+$/, '')}/${key}` : key);
  const snap = v.evidence.snapshot_uri;
  return html`<p class="links">${snap ? html`snapshot: <a href="${href(`${snap}.summary.json`)}">${snap}</a>` : 'no snapshot'}${v.evidence.audio_uri ? html` · audio: <a href="${href(v.evidence.audio_uri)}">${v.evidence.audio_uri}</a>` : ''}${v.evidence.trace_id ? html` · trace ${v.evidence.trace_id}` : ''}</p>`;
}

/** One conversation's drill-down: status, diffs, candidate reasons, path, trace and transcript. */
export function renderConversation(v: ConversationVerdict, snapshotRoot: string | null): SafeHtml {
  const why = v.status === 'VOID' ? `${v.void_reason ?? ''} ${v.void_detail.join('; ')}` : v.status === 'UNMAPPED' ? (v.unmapped_reason ?? '') : '';
  return html`<details class="conv ${v.status.toLowerCase()}" id="conv-${v.conversation_id}"><summary><b>${v.status}</b> ${v.conversation_id} · ${v.task_id ?? '(no task)'}${v.trial_index ? ` #${v.trial_index}` : ''} · ${v.harness ?? '-'}/${v.model ?? '-'} · reward ${formatRate(v.reward)} ${why}${v.pack_drift ? ' · pack drift' : ''}</summary>
${links(v, snapshotRoot)}${v.fail_reasons.length ? html`<ul class="reasons">${v.fail_reasons.map((r) => html`<li>${r}</li>`)}</ul>` : ''}${v.state ? html`<h4>State: ${v.state.pass ? 'pass' : 'FAIL'}</h4>${stateDiff(v.state.diff)}` : ''}${toolsSection(v)}${handoffSection(v)}
<h4>Trace</h4><pre>${v.evidence.trace || '(empty)'}</pre><h4>Transcript</h4><pre>${v.evidence.transcript || '(none)'}</pre></details>`;
}
