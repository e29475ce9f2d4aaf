export * from './dialect.ts';
export * from './harness.ts';
