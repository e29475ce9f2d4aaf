import type { ConversationVerdict, ScoreReport, ScoreReportOf, VerdictRow } from '../scoring/index.ts';
import { renderConversation } from './conversation-view.ts';
import { html, trusted, type SafeHtml } from './html.ts';
import { renderBreakdowns, renderCurves, renderHeader, renderLeaderboard, renderTasks } from './score-sections.ts';

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1f2328}table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top;font-size:12px}th{background:#f6f8fa}
.headline{font-size:18px;font-weight:600}.meta{color:#57606a;font-size:12px}.charts{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{font-size:12px;color:#57606a}
details.conv{border:1px solid #d0d7de;margin:4px 0;padding:4px 8px}details.pass>summary b{color:#1a7f37}details.fail>summary b{color:#d1242f}details.void>summary b,details.unmapped>summary b,details.pending>summary b{color:#9a6700}pre{white-space:pre-wrap;background:#f6f8fa;padding:6px}`;

/** Options of the HTML report. */
export interface ScoreReportOptions {
  /** Where snapshot keys resolve for links (a directory or s3:// prefix); keys stay relative when null. */
  readonly snapshotRoot: string | null;
}

/** The sections before the conversations: header, leaderboard, curves, breakdowns and tasks. */
function summarySections(report: ScoreReportOf<VerdictRow>): SafeHtml[] {
  const k = report.meta.k;
  const curves = report.aggregates.headline.tasks
    ? renderCurves(report.aggregates.headline, k, 'Headline reliability')
    : html`${report.breakdowns.pack.map((p) => renderCurves(p.metrics, k, `Reliability: ${p.value}${p.excluded_from_headline ? ' (control)' : ''}`))}`;
  return [renderHeader(report), renderLeaderboard(report.leaderboard, k), curves, renderBreakdowns({ ...report.breakdowns }, k), renderTasks(report.tasks, k)];
}

/** The sections of a score report, reusable by a web UI that lays them out differently. */
export function renderScoreSections(report: ScoreReport, options: ScoreReportOptions): SafeHtml[] {
  return [...summarySections(report), html`<section><h2>Conversations</h2>${report.conversations.map((c) => renderConversation(c, options.snapshotRoot))}</section>`];
}

/**
 * `renderScoreReport` written in pieces, with the conversations supplied one at a time: `head`,
 * then `conversation(v)` for each in order, then `tail`. The pieces join to the same bytes.
 */
export function scoreReportPieces(report: ScoreReportOf<VerdictRow>, options: ScoreReportOptions): { readonly head: string; conversation(v: ConversationVerdict): string; readonly tail: string } {
  return {
    head: html`${trusted(PAGE_START)}${summarySections(report)}<section><h2>Conversations</h2>`.text,
    conversation: (v) => renderConversation(v, options.snapshotRoot).text,
    tail: PAGE_END,
  };
}

const PAGE_START = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mivas scores</title><style>${STYLE}</style></head><body>`;
const PAGE_END = '</section></body></html>\n';

/** One self-contained HTML file: inline style and SVG, no scripts or external assets, every value escaped. */
export function renderScoreReport(report: ScoreReport, options: ScoreReportOptions): string {
  const pieces = scoreReportPieces(report, options);
  return pieces.head + report.conversations.map(pieces.conversation).join('') + pieces.tail;
}
