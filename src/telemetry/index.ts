export * from './metrics.ts';
export * from './call-facts.ts';
export * from './call-spans.ts';
export * from './tracing.ts';
export * from './trace-context.ts';
