/** A one-line progress bar on a TTY, or one line per step elsewhere. */
export class ProgressBar {
  private done = 0;

  constructor(
    private readonly out: { write(text: string): unknown; readonly isTTY?: boolean },
    private readonly total: number,
    private readonly label: string,
  ) {}

  /** Counts one finished step and redraws. */
  tick(note: string): void {
    this.done++;
    if (!this.out.isTTY) {
      this.out.write(`[${this.done}/${this.total}] ${note}\n`);
      return;
    }
    const width = 30;
    const filled = Math.round((this.done / Math.max(1, this.total)) * width);
    this.out.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} ${note.slice(0, 40).padEnd(40)}`);
    if (this.done === this.total) this.out.write('\n');
  }
}

/** Renders rows as a plain fixed-width table. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
