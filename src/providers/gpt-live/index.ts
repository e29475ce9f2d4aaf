export * from './wire.ts';
export * from './gpt-live-session.ts';
export * from './harness.ts';
