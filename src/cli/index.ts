export { main, runCli } from './main.ts';
export { ProgressBar, renderTable } from './progress.ts';
export { handoffProblems } from './check-command.ts';
export { toolRecordPath } from './preflight-command.ts';
export { validatePack } from './tasks-validate.ts';
export type { CliIO, Command } from './io.ts';
