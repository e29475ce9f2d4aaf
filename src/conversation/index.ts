export * from './agent-view.ts';
export * from './conversation.ts';
export * from './reference-route.ts';
export * from './offline-replay.ts';
export * from './conversation-run.ts';
