export * from './model-session.ts';
export * from './local-session.ts';
export * from './scripted.ts';
export * from './noop.ts';
export * from './registry.ts';
export * from './pricing.ts';
export * from './realtime/index.ts';
export * from './cascaded/index.ts';
