export * from './allocate-message-queue-strategy';
export * from './allocate-message-queue-averagely';
export * from './allocate-message-queue-averagely-by-circle';
export * from './allocate-message-queue-by-config';
export * from './allocate-message-queue-by-machine-room';
export * from './allocate-machine-room-nearby';
export * from './allocate-message-queue-consistent-hash';
export * from './consistent-hash-router';
