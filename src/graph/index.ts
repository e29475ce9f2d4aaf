export * from './graph-runtime.ts';
export * from './agent-setup.ts';
