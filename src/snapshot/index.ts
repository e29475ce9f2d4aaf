export * from './schema.ts';
export * from './timeline.ts';
export * from './s3-client.ts';
