export * from './local-caller.ts';
export * from './run-plan.ts';
