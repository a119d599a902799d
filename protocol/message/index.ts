export * from './message-const';
export * from './properties';
export * from './sys-flag';
export * from './java-hash';
export * from './message-queue';
