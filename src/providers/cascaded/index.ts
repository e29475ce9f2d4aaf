export * from './sse.ts';
export * from './endpoints.ts';
export * from './vad.ts';
export * from './cascaded-session.ts';
export * from './harness.ts';
