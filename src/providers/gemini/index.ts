export * from './wire.ts';
export * from './gemini-session.ts';
export * from './harness.ts';
