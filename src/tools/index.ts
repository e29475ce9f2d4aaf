export * from './envelope.ts';
export * from './executor.ts';
export * from './replay.ts';
