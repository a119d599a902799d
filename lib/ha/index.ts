export { HAService, type HAServiceOptions } from './ha-service';
export { HAConnection } from './ha-connection';
export { HAClient } from './ha-client';
