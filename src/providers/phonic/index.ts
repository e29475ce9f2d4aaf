export * from './wire.ts';
export * from './phonic-session.ts';
export * from './harness.ts';
