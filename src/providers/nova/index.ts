export * from './transport.ts';
export * from './nova-session.ts';
export * from './harness.ts';
