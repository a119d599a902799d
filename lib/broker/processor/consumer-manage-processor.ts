/**
 * GET_CONSUMER_LIST_BY_GROUP (38), UPDATE_CONSUMER_OFFSET (15), QUERY_CONSUMER_OFFSET (14).
 *
 * @see org.apache.rocketmq.broker.processor.ConsumerManageProcessor
 */
import type { Logger } from '../../logger';
import type { ConsumerManager } from '../client-manager/consumer-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { DefaultMessageStore } from '../../store/message-store';
import type { BrokerProcessor } from './broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { encodeGetConsumerListByGroupResponseBody } from '../../../protocol/body/get-consumer-list-by-group-response-body';
import { GetConsumerListByGroup } from '../../../protocol/requests/get-consumer-list-by-group';
import { QueryConsumerOffset } from '../../../protocol/requests/query-consumer-offset';
import { UpdateConsumerOffset } from '../../../protocol/requests/update-consumer-offset';

/** What the consumer-manage processor uses of the broker. */
export interface ConsumerManageController {
  readonly logger: Logger;
  readonly consumerManager: Pick<ConsumerManager, 'getConsumerGroupInfo'>;
  readonly consumerOffsetManager: Pick<ConsumerOffsetManager, 'commitOffset' | 'queryOffset'>;
  readonly messageStore: Pick<DefaultMessageStore, 'getMinOffsetInQueue'>;
}

export class ConsumerManageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.GET_CONSUMER_LIST_BY_GROUP, RequestCode.UPDATE_CONSUMER_OFFSET, RequestCode.QUERY_CONSUMER_OFFSET] as const;

  constructor(private readonly controller: ConsumerManageController) {}

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand> {
    const c = this.controller;
    switch (request.code) {
      case RequestCode.GET_CONSUMER_LIST_BY_GROUP: {
        const h = GetConsumerListByGroup.requestHeader.decode(request.extFields);
        const ids = c.consumerManager.getConsumerGroupInfo(h.consumerGroup)?.getAllClientId() ?? [];
        if (ids.length === 0) {
          c.logger.warn({ group: h.consumerGroup, remoteAddr: ctx.remoteAddress }, 'getConsumerGroupInfo failed');
          return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `no consumer for this group, ${h.consumerGroup}`);
        }
        return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, encodeGetConsumerListByGroupResponseBody({ consumerIdList: ids }));
      }
      case RequestCode.UPDATE_CONSUMER_OFFSET: {
        const h = UpdateConsumerOffset.requestHeader.decode(request.extFields);
        c.consumerOffsetManager.commitOffset(ctx.remoteAddress, h.consumerGroup, h.topic, h.queueId, h.commitOffset);
        return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
      }
      default: {
        const h = QueryConsumerOffset.requestHeader.decode(request.extFields);
        const offset = c.consumerOffsetManager.queryOffset(h.consumerGroup, h.topic, h.queueId);
        if (offset >= 0) {
          return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, QueryConsumerOffset.responseHeader.encode({ offset }));
        }
        const minOffset = c.messageStore.getMinOffsetInQueue(h.topic, h.queueId);
        // Java: a queue that still starts at 0 (nothing cleaned up) is consumed from 0 by a new group, unless a 5.x
        // client asked not to (setZeroIfNotFound=false).
        if (h.setZeroIfNotFound !== false && minOffset <= 0) {
          return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, QueryConsumerOffset.responseHeader.encode({ offset: 0 }));
        }
        return RemotingCommand.createResponse(request, ResponseCode.QUERY_NOT_FOUND, 'Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first');
      }
    }
  }
}
