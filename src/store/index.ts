export * from './template.ts';
export * from './call-databases.ts';
export * from './dump.ts';
export * from './pack-databases.ts';
