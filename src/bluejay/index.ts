export * from './schema.ts';
export * from './client.ts';
export * from './link-body.ts';
export * from './link-ledger.ts';
export * from './link-worker.ts';
export * from './digital-humans.ts';
