export * from './message-queue-selector';
export * from './java-hash-code';
export * from './select-message-queue-by-hash';
export * from './select-message-queue-by-random';
export * from './select-message-queue-by-machine-room';
