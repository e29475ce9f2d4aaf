export * from './dialect.ts';
export * from './ga-dialect.ts';
export * from './xai-dialect.ts';
export * from './qwen-dialect.ts';
export * from './server-events.ts';
export * from './usage.ts';
export * from './realtime-session.ts';
export * from './harnesses.ts';
