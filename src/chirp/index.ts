export * from './codec.ts';
export * from './outbound-pacer.ts';
export * from './chirp-socket.ts';
export * from './upgrade.ts';
