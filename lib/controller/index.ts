// The controller role of controller mode (RIP-44): ControllerManager and its parts.
export * from './controller-config';
export * from './event-serializer';
export * from './elect-policy';
export * from './replicas-info-manager';
export * from './broker-heartbeat-manager';
export * from './dledger-controller';
export * from './controller-manager';
