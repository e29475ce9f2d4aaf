export * from './schema.ts';
export * from './timeline.ts';
export * from './s3-client.ts';
export * from './sinks.ts';
export * from './outbox.ts';
export * from './void-facts.ts';
export * from './caller-file.ts';
