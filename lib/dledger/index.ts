export * from './dledger-config';
export * from './dledger-entry';
export * from './dledger-protocol';
export * from './dledger-mmap-file-store';
export * from './dledger-server';
