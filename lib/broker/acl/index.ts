export * from './permission';
export * from './plain-access-resource';
export * from './plain-access-validator';
export * from './plain-permission-manager';
export * from './remote-address-strategy';
export * from './acl-config-processor';
