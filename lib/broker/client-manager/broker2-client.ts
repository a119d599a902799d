/**
 * Requests the broker sends to its clients over their own connections.
 *
 * @see org.apache.rocketmq.broker.client.net.Broker2Client
 */
import { isVirtualChannel } from './virtual-channel';
import { RemotingSendRequestError } from '../../errors';
import type { Logger } from '../../logger';
import type { Channel } from '../../transport/connection';
import type { RemotingServer } from '../../transport/remoting-server';
import { RemotingCommand, type ExtFields } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { NotifyConsumerIdsChangedRequestHeader } from '../../../protocol/header/notify-consumer-ids-changed-request-header';
import { ResetOffsetRequestHeader } from '../../../protocol/header/reset-offset-request-header';
import { GetConsumerStatusRequestHeader } from '../../../protocol/header/get-consumer-status-request-header';
import { encodeResetOffsetBody } from '../../../protocol/body/reset-offset-body';
import { decodeGetConsumerStatusBody, encodeGetConsumerStatusBody } from '../../../protocol/body/get-consumer-status-body';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import type { BrokerConfig } from '../broker-config';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { ConsumerManager } from './consumer-manager';
import type { DefaultMessageStore } from '../../store/message-store';

/** MQVersion.Version.V3_0_7_SNAPSHOT.ordinal(): older clients cannot reset offsets or report their status. */
export const V3_0_7_SNAPSHOT = 28;
/** The time Java gives GET_CONSUMER_STATUS_FROM_CLIENT and RESET_CONSUMER_CLIENT_OFFSET, ms. */
const CLIENT_CALL_TIMEOUT_MILLIS = 5000;

/** The parts of the controller the offset reset and status requests read. */
export interface Broker2ClientHost {
  readonly brokerConfig: Pick<BrokerConfig, 'brokerName'>;
  readonly topicConfigManager: Pick<TopicConfigManager, 'selectTopicConfig'>;
  readonly consumerOffsetManager: Pick<ConsumerOffsetManager, 'queryOffset'>;
  readonly messageStore: Pick<DefaultMessageStore, 'getMaxOffsetInQueue' | 'getOffsetInQueueByTime'>;
  readonly consumerManager: Pick<ConsumerManager, 'getConsumerGroupInfo'>;
}

export class Broker2Client {
  constructor(
    private readonly server: () => RemotingServer,
    private readonly logger: Logger,
    private readonly host: () => Broker2ClientHost | null = () => null,
  ) {}

  /** Oneway NOTIFY_CONSUMER_IDS_CHANGED (40) to one consumer. */
  notifyConsumerIdsChanged(channel: Channel, consumerGroup: string): void {
    if (!consumerGroup) {
      this.logger.error('notifyConsumerIdsChanged consumerGroup is null');
      return;
    }
    // A gRPC client learns of its group's changes through QueryAssignment, not this call.
    if (isVirtualChannel(channel)) return;
    const request = RemotingCommand.createRequest(
      RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
      NotifyConsumerIdsChangedRequestHeader.encode({ consumerGroup }),
    );
    this.server().invokeOneway(channel, request, 10).catch((err: unknown) => {
      this.logger.error({ err, consumerGroup, remoteAddr: channel.remoteAddress }, 'notifyConsumerIdsChanged exception');
    });
  }

  /** Oneway CHECK_TRANSACTION_STATE (39) to a producer of the group, with the half message as body. */
  checkProducerTransactionState(group: string, channel: Channel, header: ExtFields, messageBody: Buffer): void {
    const request = RemotingCommand.createRequest(RequestCode.CHECK_TRANSACTION_STATE, header, messageBody);
    // A gRPC producer gets the check through its channel (as a Telemetry command), not over a remoting connection.
    if (isVirtualChannel(channel)) {
      channel.writeAndFlush?.(request);
      return;
    }
    this.server().invokeOneway(channel, request, 10).catch((err: unknown) => {
      this.logger.error({ err, group, remoteAddr: channel.remoteAddress }, 'check transaction failed');
    });
  }

  /** Forwards a request to a client and returns its answer (GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY). */
  callClient(channel: Channel, request: RemotingCommand, timeoutMillis = 10000): Promise<RemotingCommand> {
    // A gRPC client answers through its channel's relay (Telemetry), not over a remoting connection.
    if (isVirtualChannel(channel)) {
      return channel.invoke
        ? channel.invoke(request, timeoutMillis)
        : Promise.reject(new RemotingSendRequestError(channel.remoteAddress, `a ${channel.kind} client does not answer request code ${request.code}`));
    }
    return this.server().invoke(channel, request, timeoutMillis);
  }

  /**
   * INVOKE_BROKER_TO_RESET_OFFSET (222), Java's Broker2Client.resetOffset: the offset of each write queue of the
   * topic at `timestamp` (-1: the max offset), kept at the group's committed offset when that is lower unless
   * `isForce`; sent oneway as RESET_CONSUMER_CLIENT_OFFSET (220) to every consumer of the group and answered with
   * the table (CONSUMER_NOT_ONLINE when the group has no consumer).
   */
  async resetOffset(request: RemotingCommand, topic: string, group: string, timestamp: number, isForce: boolean): Promise<RemotingCommand> {
    const c = this.#host();
    const fail = (code: number, remark: string) => RemotingCommand.createResponse(request, code, remark);
    const topicConfig = c.topicConfigManager.selectTopicConfig(topic);
    if (!topicConfig) {
      this.logger.error({ topic }, '[reset-offset] reset offset failed, no topic in this broker');
      return fail(ResponseCode.SYSTEM_ERROR, `[reset-offset] reset offset failed, no topic in this broker. topic=${topic}`);
    }
    const offsetTable: Array<[MessageQueue, number]> = [];
    for (let i = 0; i < topicConfig.writeQueueNums; i++) {
      const mq: MessageQueue = { topic, brokerName: c.brokerConfig.brokerName, queueId: i };
      const consumerOffset = c.consumerOffsetManager.queryOffset(group, topic, i);
      if (consumerOffset === -1) return fail(ResponseCode.SYSTEM_ERROR, `THe consumer group <${group}> not exist`);
      let timeStampOffset = timestamp === -1
        ? c.messageStore.getMaxOffsetInQueue(topic, i)
        : await c.messageStore.getOffsetInQueueByTime(topic, i, timestamp);
      if (timeStampOffset < 0) {
        this.logger.warn({ topic, queueId: i, timeStampOffset }, 'reset offset is invalid');
        timeStampOffset = 0;
      }
      offsetTable.push([mq, isForce || timeStampOffset < consumerOffset ? timeStampOffset : consumerOffset]);
    }
    const notify = RemotingCommand.createRequest(
      RequestCode.RESET_CONSUMER_CLIENT_OFFSET,
      ResetOffsetRequestHeader.encode({ topic, group, timestamp, isForce: false }),
      encodeResetOffsetBody({ offsetTable }),
    );
    const groupInfo = c.consumerManager.getConsumerGroupInfo(group);
    if (!groupInfo || groupInfo.channelInfoTable.size === 0) {
      const errorInfo = `Consumer not online, so can not reset offset, Group: ${group} Topic: ${topic} Timestamp: ${timestamp}`;
      this.logger.error(errorInfo);
      return fail(ResponseCode.CONSUMER_NOT_ONLINE, errorInfo);
    }
    for (const [channel, info] of groupInfo.channelInfoTable) {
      if (info.version < V3_0_7_SNAPSHOT) {
        this.logger.warn({ remoteAddr: channel.remoteAddress, version: info.version }, '[reset-offset] the client does not support this feature');
        return fail(ResponseCode.SYSTEM_ERROR, `the client does not support this feature. version=${info.version}`);
      }
      this.server().invokeOneway(channel, notify, CLIENT_CALL_TIMEOUT_MILLIS).then(
        () => this.logger.info({ topic, group, clientId: info.clientId }, '[reset-offset] reset offset success'),
        (err: unknown) => this.logger.error({ err, topic, group }, '[reset-offset] reset offset exception'),
      );
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, encodeResetOffsetBody({ offsetTable }));
  }

  /**
   * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), Java's Broker2Client.getConsumeStatus: asks each consumer of the
   * group (or only `originClientId`) with GET_CONSUMER_STATUS_FROM_CLIENT (221) and answers every client's offset
   * table by client id; a client that fails or times out is left out.
   */
  async getConsumeStatus(request: RemotingCommand, topic: string, group: string, originClientId?: string): Promise<RemotingCommand> {
    const c = this.#host();
    const groupInfo = c.consumerManager.getConsumerGroupInfo(group);
    if (!groupInfo || groupInfo.channelInfoTable.size === 0) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `No Any Consumer online in the consumer group: [${group}]`);
    }
    const ask = RemotingCommand.createRequest(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, GetConsumerStatusRequestHeader.encode({ topic, group }));
    const consumerTable = new Map<string, Array<[MessageQueue, number]>>();
    const only = originClientId && originClientId.trim() !== '' ? originClientId : null;
    for (const [channel, info] of groupInfo.channelInfoTable) {
      if (info.version < V3_0_7_SNAPSHOT) {
        this.logger.warn({ remoteAddr: channel.remoteAddress, version: info.version }, '[get-consumer-status] the client does not support this feature');
        return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `the client does not support this feature. version=${info.version}`);
      }
      if (only !== null && only !== info.clientId) continue;
      try {
        const response = await this.server().invoke(channel, ask, CLIENT_CALL_TIMEOUT_MILLIS);
        if (response.code === ResponseCode.SUCCESS && response.body) {
          consumerTable.set(info.clientId, decodeGetConsumerStatusBody(response.body).messageQueueTable);
        }
      } catch (err) {
        this.logger.error({ err, topic, group }, '[get-consumer-status] get consumer status exception');
      }
      if (only !== null) break;
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null,
      encodeGetConsumerStatusBody({ messageQueueTable: [], consumerTable }));
  }

  #host(): Broker2ClientHost {
    const h = this.host();
    if (!h) throw new Error('Broker2Client has no broker to read offsets from');
    return h;
  }
}
