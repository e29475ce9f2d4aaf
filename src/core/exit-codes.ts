/** The exit-code scheme shared by every command (architecture.md §14). */
export const EXIT = { ok: 0, checkFailed: 1, incomplete: 2, usage: 3 } as const;
