/**
 * HEART_BEAT (34), UNREGISTER_CLIENT (35), CHECK_CLIENT_CONFIG (46): producer and consumer group membership
 * (auto-creating the group's retry topic), and the SQL92 check of a subscription before a client uses it.
 *
 * @see org.apache.rocketmq.broker.processor.ClientManageProcessor
 */
import type { BrokerConfig } from '../broker-config';
import type { Logger } from '../../logger';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { ConsumerManager } from '../client-manager/consumer-manager';
import type { ProducerManager } from '../client-manager/producer-manager';
import type { BrokerProcessor } from './broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeHeartbeatData } from '../../../protocol/body/heartbeat-data';
import { decodeCheckClientRequestBody } from '../../../protocol/body/check-client-request-body';
import { PermName } from '../../../protocol/body/perm-name';
import { buildTopicSysFlag } from '../../../protocol/body/topic-sys-flag';
import { UnregisterClient } from '../../../protocol/requests/unregister-client';
import { newClientChannelInfo } from '../client-manager/client-channel-info';
import { getRetryTopic } from '../topic/topic-validator';
import { ExpressionMessageFilter, isTagType } from '../filter/message-filter';
import { FilterExpressionError } from '../filter/filter-expression-error';

/** What the client-manage processor uses of the broker. */
export interface ClientManageController {
  readonly brokerConfig: Pick<BrokerConfig, 'enablePropertyFilter'>;
  readonly logger: Logger;
  readonly topicConfigManager: Pick<TopicConfigManager, 'createTopicInSendMessageBackMethod'>;
  readonly subscriptionGroupManager: Pick<SubscriptionGroupManager, 'findSubscriptionGroupConfig'>;
  readonly consumerManager: Pick<ConsumerManager, 'registerConsumer' | 'unregisterConsumer'>;
  readonly producerManager: Pick<ProducerManager, 'registerProducer' | 'unregisterProducer'>;
}

export class ClientManageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.HEART_BEAT, RequestCode.UNREGISTER_CLIENT, RequestCode.CHECK_CLIENT_CONFIG] as const;

  constructor(private readonly controller: ClientManageController) {}

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand> {
    switch (request.code) {
      case RequestCode.HEART_BEAT:
        return this.heartBeat(request, ctx);
      case RequestCode.UNREGISTER_CLIENT:
        return this.unregisterClient(request, ctx);
      default:
        return this.checkClientConfig(request);
    }
  }

  heartBeat(request: RemotingCommand, ctx: RemotingContext): RemotingCommand {
    const c = this.controller;
    if (!request.body) return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'heartbeat body is empty');
    const hb = decodeHeartbeatData(request.body);
    const info = newClientChannelInfo(ctx.channel, hb.clientID, request.language, request.version);
    for (const data of hb.consumerDataSet) {
      const sgc = c.subscriptionGroupManager.findSubscriptionGroupConfig(data.groupName);
      let notify = true;
      if (sgc) {
        notify = sgc.notifyConsumerIdsChangedEnable;
        const topicSysFlag = data.unitMode ? buildTopicSysFlag(false, true) : 0;
        c.topicConfigManager.createTopicInSendMessageBackMethod(getRetryTopic(data.groupName), sgc.retryQueueNums, PermName.PERM_WRITE | PermName.PERM_READ, topicSysFlag);
      }
      const changed = c.consumerManager.registerConsumer(
        data.groupName, info, data.consumeType, data.messageModel, data.consumeFromWhere, data.subscriptionDataSet, notify,
      );
      if (changed) c.logger.info({ group: data.groupName, clientId: hb.clientID, remoteAddr: ctx.remoteAddress }, 'registerConsumer info changed');
    }
    for (const data of hb.producerDataSet) c.producerManager.registerProducer(data.groupName, info);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
  }

  unregisterClient(request: RemotingCommand, ctx: RemotingContext): RemotingCommand {
    const c = this.controller;
    const header = UnregisterClient.requestHeader.decode(request.extFields);
    const info = newClientChannelInfo(ctx.channel, header.clientID, request.language, request.version);
    if (header.producerGroup) c.producerManager.unregisterProducer(header.producerGroup, info);
    if (header.consumerGroup) {
      const sgc = c.subscriptionGroupManager.findSubscriptionGroupConfig(header.consumerGroup);
      const notify = sgc ? sgc.notifyConsumerIdsChangedEnable : true;
      c.consumerManager.unregisterConsumer(header.consumerGroup, info, notify);
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
  }

  checkClientConfig(request: RemotingCommand): RemotingCommand {
    const body = request.body ? decodeCheckClientRequestBody(request.body) : null;
    const sub = body?.subscriptionData;
    if (!sub || isTagType(sub.expressionType)) return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
    if (!this.controller.brokerConfig.enablePropertyFilter) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `The broker does not support consumer to filter message by ${sub.expressionType}`);
    }
    try {
      ExpressionMessageFilter.create(sub);
    } catch (err) {
      if (err instanceof FilterExpressionError) {
        this.controller.logger.warn({ err, group: body?.group, clientId: body?.clientId }, 'client sql92 parse error');
        return RemotingCommand.createResponse(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, err.message);
      }
      throw err;
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
  }
}
