export * from './framing.ts';
export * from './reward.ts';
export * from './text-snapshot.ts';
export * from './text-episode.ts';
export * from './policies.ts';
export * from './callers.ts';
export * from './run-episode.ts';
