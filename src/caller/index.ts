export * from './local-caller.ts';
export * from './run-plan.ts';
export * from './caller-mind.ts';
