/**
 * rocketmq-ts/protocol: the pure remoting codec (frames, commands, codes, headers, bodies, messages).
 */
export * from './errors';
export * from './frame';
export * from './remoting-command';
export * from './code/request-code';
export * from './code/response-code';
export * from './header/index';
export * from './body/index';
export * from './message/index';
export * from './ha/ha-codec';
export * from './codec';
export * from './code/response-code-table';
export * from './requests/index';
