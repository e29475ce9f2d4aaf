export * from './template.ts';
export * from './call-databases.ts';
export * from './dump.ts';
