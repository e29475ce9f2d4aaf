export * from './envelope.ts';
export * from './executor.ts';
