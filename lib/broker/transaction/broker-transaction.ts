/**
 * Builds the broker's transaction services over a BrokerController-like object (Java's
 * BrokerController.initialTransaction): the service, the default check listener (CHECK_TRANSACTION_STATE to one
 * live producer channel of the group, round-robin) and the check service.
 *
 * @see org.apache.rocketmq.broker.BrokerController#initialTransaction
 */
import { CheckTransactionStateRequestHeader } from '../../../protocol/header/check-transaction-state-request-header';
import type { Logger } from '../../logger';
import type { Channel } from '../../transport/connection';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import type { GetMessageResult, PutMessageResult } from '../../store/store-status';
import { PermName } from '../../../protocol/body/perm-name';
import { TransactionalMessageBridge, type TransactionBrokerPort } from './transactional-message-bridge';
import { DefaultTransactionalMessageCheckListener } from './transactional-message-check-listener';
import { TransactionalMessageCheckService, type TransactionCheckConfig } from './transactional-message-check-service';
import { TransactionalMessageService } from './transactional-message-service';

/** The parts of BrokerController the transaction services use. */
export interface TransactionHost {
  readonly brokerConfig: TransactionCheckConfig & { readonly brokerName: string };
  readonly messageStoreConfig: { readonly fileReservedTime: number };
  readonly storeHost: { address: string; port: number };
  readonly messageStore: {
    putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult>;
    getMessage(group: string, topic: string, queueId: number, offset: number, maxMsgNums: number): Promise<GetMessageResult>;
    lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null>;
    getMinOffsetInQueue(topic: string, queueId: number): number;
  };
  readonly consumerOffsetManager: {
    queryOffset(group: string, topic: string, queueId: number): number;
    commitOffset(clientHost: string, group: string, topic: string, queueId: number, offset: number): void;
  };
  readonly topicConfigManager: {
    selectTopicConfig(topic: string): { readQueueNums: number } | undefined;
    createTopicInSendMessageBackMethod(topic: string, queueNums: number, perm: number, topicSysFlag: number): { readQueueNums: number };
  };
  readonly producerManager: { getAvailableChannel(group: string): Channel | null };
  readonly broker2Client: { checkProducerTransactionState(group: string, channel: Channel, header: Record<string, string>, body: Buffer): void };
}

export interface BrokerTransaction {
  readonly transactionalMessageService: TransactionalMessageService;
  readonly transactionalMessageCheckListener: DefaultTransactionalMessageCheckListener;
  readonly transactionalMessageCheckService: TransactionalMessageCheckService;
}

export function createBrokerTransaction(host: TransactionHost, log: Logger): BrokerTransaction {
  const port: TransactionBrokerPort = {
    get brokerName() {
      return host.brokerConfig.brokerName;
    },
    get storeHost() {
      return { host: host.storeHost.address, port: host.storeHost.port };
    },
    get fileReservedTime() {
      return host.messageStoreConfig.fileReservedTime;
    },
    messageStore: {
      putMessage: (msg) => host.messageStore.putMessage(msg),
      getMessage: (group, topic, queueId, offset, maxMsgNums) => host.messageStore.getMessage(group, topic, queueId, offset, maxMsgNums),
      lookMessageByOffset: (o) => host.messageStore.lookMessageByOffset(o),
      getMinOffsetInQueue: (t, q) => host.messageStore.getMinOffsetInQueue(t, q),
    },
    queryConsumerOffset: (g, t, q) => host.consumerOffsetManager.queryOffset(g, t, q),
    commitConsumerOffset: (h, g, t, q, o) => host.consumerOffsetManager.commitOffset(h, g, t, q, o),
    ensureSystemTopic: (topic, queueNums) => {
      const tc = host.topicConfigManager.selectTopicConfig(topic)
        ?? host.topicConfigManager.createTopicInSendMessageBackMethod(topic, queueNums, PermName.PERM_WRITE | PermName.PERM_READ, 0);
      return tc.readQueueNums;
    },
  };
  const service = new TransactionalMessageService(new TransactionalMessageBridge(port, log), log);
  const listener = new DefaultTransactionalMessageCheckListener(port, async (group, header, body) => {
    const channel = host.producerManager.getAvailableChannel(group);
    if (!channel) return false;
    host.broker2Client.checkProducerTransactionState(group, channel, CheckTransactionStateRequestHeader.encode(header), body);
    return true;
  }, log);
  const checkService = new TransactionalMessageCheckService(host.brokerConfig, service, listener, log);
  return { transactionalMessageService: service, transactionalMessageCheckListener: listener, transactionalMessageCheckService: checkService };
}
