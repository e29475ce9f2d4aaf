export * from './app.ts';
export * from './app-context.ts';
export * from './auth.ts';
export * from './observability.ts';
export * from './node-flags.ts';
export * from './bind-check.ts';
export * from './shutdown.ts';
export * from './caller-settings.ts';
export { UI_QUEUE_MAX } from './score-thread.ts';
