/**
 * The files `mivas score` writes for one run, from a report over rows whose whole verdicts wait in
 * the spill file: `scores.json`, `conversations.csv` and `report.html` are written together, one
 * conversation at a time read back from the spill, so no output is ever held whole. Their bytes are
 * those of `scoresJson`, `conversationsCsv` and `renderScoreReport` over the whole report.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { scoreReportPieces } from '../report/index.ts';
import { CSV_HEADER_LINE, csvLine, scoresJsonPieces, type ConversationVerdict, type RunMeta, type ScoreReport, type ScoreReportOf, type SpilledVerdict, type VerdictSpill } from '../scoring/index.ts';

/**
 * Text written to a file in chunks of about 64 KB. Small chunks matter: pieces held longer (a
 * megabyte's worth) outlive the young generation and pile up as old garbage, which at 5,000
 * conversations grew the heap by 170 MB while the files were written.
 */
class ChunkedFile {
  private parts: string[] = [];
  private pending = 0;
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= 1 << 16) this.flush();
  }

  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }

  private flush(): void {
    const bytes = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.pending = 0;
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at);
  }
}

/** The run's whole verdicts, in the report's order, read back one at a time. */
export function* spilledVerdicts(report: ScoreReportOf<SpilledVerdict>, spill: VerdictSpill): Generator<ConversationVerdict> {
  for (const row of report.conversations) yield spill.verdict(row);
}

/** The report with its whole verdicts in memory (the comparison of several runs reads them). */
export function wholeReport(report: ScoreReportOf<SpilledVerdict>, spill: VerdictSpill): ScoreReport {
  return { ...report, conversations: [...spilledVerdicts(report, spill)] };
}

/** Writes scores.json, run.json, conversations.csv and report.html under `out`. */
export function writeScoreOutputs(out: string, report: ScoreReportOf<SpilledVerdict>, runs: readonly RunMeta[], spill: VerdictSpill, snapshotRoot: string | null): void {
  mkdirSync(out, { recursive: true });
  const json = scoresJsonPieces(report);
  const page = scoreReportPieces(report, { snapshotRoot });
  const files = ['scores.json', 'conversations.csv', 'report.html'].map((name) => new ChunkedFile(join(out, name)));
  const [scores, csv, html] = files as [ChunkedFile, ChunkedFile, ChunkedFile];
  try {
    scores.write(json.head);
    csv.write(CSV_HEADER_LINE);
    html.write(page.head);
    let index = 0;
    for (const v of spilledVerdicts(report, spill)) {
      scores.write(json.element(v, index++));
      csv.write(csvLine(v));
      html.write(page.conversation(v));
    }
    scores.write(json.tail(index));
    html.write(page.tail);
  } finally {
    for (const file of files) file.close();
  }
  writeFileSync(join(out, 'run.json'), `${JSON.stringify({ runs }, null, 2)}\n`);
}
