export * from './transactional-message-util';
export * from './transactional-message-bridge';
export * from './transactional-message-service';
export * from './transactional-message-check-listener';
export * from './transactional-message-check-service';
export * from './broker-transaction';
