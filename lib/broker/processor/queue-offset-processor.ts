/**
 * The queue-offset admin codes: GET_MAX_OFFSET (30), GET_MIN_OFFSET (31), SEARCH_OFFSET_BY_TIMESTAMP (29),
 * GET_EARLIEST_MSG_STORETIME (32), GET_ALL_CONSUMER_OFFSET (43). (In Java these live in AdminBrokerProcessor.)
 *
 * @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor
 */
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { DefaultMessageStore } from '../../store/message-store';
import type { BrokerProcessor } from './broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { GetEarliestMsgStoretime } from '../../../protocol/requests/get-earliest-msg-storetime';
import { GetMaxOffset } from '../../../protocol/requests/get-max-offset';
import { GetMinOffset } from '../../../protocol/requests/get-min-offset';
import { SearchOffset } from '../../../protocol/requests/search-offset';

/** What the queue-offset processor uses of the broker. */
export interface QueueOffsetController {
  readonly consumerOffsetManager: Pick<ConsumerOffsetManager, 'encode'>;
  readonly messageStore: Pick<DefaultMessageStore, 'getMaxOffsetInQueue' | 'getMinOffsetInQueue' | 'getOffsetInQueueByTime' | 'getEarliestMessageTime'>;
}

export class QueueOffsetProcessor implements BrokerProcessor {
  readonly requestCodes = [
    RequestCode.GET_MAX_OFFSET, RequestCode.GET_MIN_OFFSET, RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
    RequestCode.GET_EARLIEST_MSG_STORETIME, RequestCode.GET_ALL_CONSUMER_OFFSET,
  ] as const;

  constructor(private readonly controller: QueueOffsetController) {}

  async processRequest(request: RemotingCommand, _ctx: RemotingContext): Promise<RemotingCommand> {
    const store = this.controller.messageStore;
    const ok = (extFields: Record<string, string> | null, body?: Buffer) => RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, extFields, body);
    switch (request.code) {
      case RequestCode.GET_MAX_OFFSET: {
        const h = GetMaxOffset.requestHeader.decode(request.extFields);
        return ok(GetMaxOffset.responseHeader.encode({ offset: store.getMaxOffsetInQueue(h.topic, h.queueId) }));
      }
      case RequestCode.GET_MIN_OFFSET: {
        const h = GetMinOffset.requestHeader.decode(request.extFields);
        return ok(GetMinOffset.responseHeader.encode({ offset: store.getMinOffsetInQueue(h.topic, h.queueId) }));
      }
      case RequestCode.SEARCH_OFFSET_BY_TIMESTAMP: {
        const h = SearchOffset.requestHeader.decode(request.extFields);
        return ok(SearchOffset.responseHeader.encode({ offset: await store.getOffsetInQueueByTime(h.topic, h.queueId, h.timestamp) }));
      }
      case RequestCode.GET_EARLIEST_MSG_STORETIME: {
        const h = GetEarliestMsgStoretime.requestHeader.decode(request.extFields);
        return ok(GetEarliestMsgStoretime.responseHeader.encode({ timestamp: await store.getEarliestMessageTime(h.topic, h.queueId) }));
      }
      default: {
        const text = this.controller.consumerOffsetManager.encode();
        if (!text) return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'No consumer offset in this broker');
        return ok(null, Buffer.from(text, 'utf8'));
      }
    }
  }
}
