import { expect } from 'chai';
import { applyBrokerProperties } from '../../../lib/broker/broker-config';
import { DEFAULT_MESSAGE_STORE_CONFIG } from '../../../lib/store/message-store-config';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { ConfigError } from '../../../lib/errors';

describe('ha: configuration keys', () => {
  it('has Java 4.9.8 defaults', () => {
    const c = DEFAULT_MESSAGE_STORE_CONFIG;
    expect(c.brokerRole).to.equal('ASYNC_MASTER');
    expect(c.haSendHeartbeatInterval).to.equal(5000);
    expect(c.haHousekeepingInterval).to.equal(20000);
    expect(c.haTransferBatchSize).to.equal(32768);
    expect(c.haSlaveFallbehindMax).to.equal(256 * 1024 * 1024);
    expect(c.syncFlushTimeout).to.equal(5000);
    expect(c.accessMessageInMemoryMaxRatio).to.equal(40);
    expect(c.haListenPort).to.equal(0); // listenPort + 1, as Java's BrokerStartup derives it
  });

  it('reads them from broker.conf', () => {
    const { brokerConfig, messageStoreConfig, unknownKeys } = applyBrokerProperties(new Map([
      ['brokerRole', 'SLAVE'], ['brokerId', '2'], ['haListenPort', '30912'], ['haSendHeartbeatInterval', '1000'],
      ['haHousekeepingInterval', '3000'], ['haTransferBatchSize', '65536'], ['haSlaveFallbehindMax', '1024'],
      ['syncFlushTimeout', '700'], ['haMasterAddress', '10.0.0.1:10912'], ['slaveReadEnable', 'true'],
      ['accessMessageInMemoryMaxRatio', '10'],
    ]));
    expect(unknownKeys).to.deep.equal([]);
    expect(brokerConfig.brokerId).to.equal(2);
    expect(brokerConfig.slaveReadEnable).to.equal(true);
    expect(messageStoreConfig).to.include({
      brokerRole: 'SLAVE', haListenPort: 30912, haSendHeartbeatInterval: 1000, haHousekeepingInterval: 3000,
      haTransferBatchSize: 65536, haSlaveFallbehindMax: 1024, syncFlushTimeout: 700, haMasterAddress: '10.0.0.1:10912',
      accessMessageInMemoryMaxRatio: 10,
    });
  });

  it('a slave needs brokerId > 0; a master is brokerId 0 (Java BrokerStartup)', () => {
    expect(() => new BrokerController({ brokerConfig: { brokerId: 0 }, messageStoreConfig: { brokerRole: 'SLAVE' } })).to.throw(ConfigError);
    const m = new BrokerController({ brokerConfig: { brokerId: 3 }, messageStoreConfig: { brokerRole: 'SYNC_MASTER' } });
    expect(m.brokerConfig.brokerId).to.equal(0);
  });
});
