/** m:ss, or h:mm:ss past an hour. */
export function clockText(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * A one-line progress bar on a TTY, or one line per step elsewhere; each shows the elapsed time,
 * an ETA from the mean step so far, and a tally of the outcomes given (PASS, FAIL, VOID, a close reason).
 */
export class ProgressBar {
  private done = 0;
  private readonly tally = new Map<string, number>();
  private readonly startedMs: number;

  private readonly out: { write(text: string): unknown; readonly isTTY?: boolean };
  private readonly total: number;
  private readonly label: string;
  private readonly nowMs: () => number;

  constructor(
    out: { write(text: string): unknown; readonly isTTY?: boolean },
    total: number,
    label: string,
    nowMs: () => number = Date.now,
  ) {
    this.out = out;
    this.total = total;
    this.label = label;
    this.nowMs = nowMs;
    this.startedMs = nowMs();
  }

  /** Counts one finished step with its outcome and redraws. */
  tick(note: string, outcome?: string): void {
    this.done++;
    if (outcome) this.tally.set(outcome, (this.tally.get(outcome) ?? 0) + 1);
    const status = this.status();
    if (!this.out.isTTY) {
      this.out.write(`[${this.done}/${this.total}] ${note} · ${status}\n`);
      return;
    }
    const width = 30;
    const filled = Math.round((this.done / Math.max(1, this.total)) * width);
    this.out.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} ${note.slice(0, 30).padEnd(30)} ${status}`);
    if (this.done === this.total) this.out.write('\n');
  }

  /** What has happened so far, for a summary after an interruption. */
  counts(): { readonly done: number; readonly total: number; readonly tally: ReadonlyMap<string, number> } {
    return { done: this.done, total: this.total, tally: this.tally };
  }

  private status(): string {
    const elapsed = this.nowMs() - this.startedMs;
    const left = this.total - this.done;
    const eta = left > 0 && this.done > 0 ? `, ETA ${clockText((elapsed / this.done) * left)}` : '';
    const tally = [...this.tally.entries()].map(([k, n]) => `${n} ${k}`).join(' ');
    return `${clockText(elapsed)} elapsed${eta}${tally ? ` · ${tally}` : ''}`;
  }
}

/** Renders rows as a plain fixed-width table. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
