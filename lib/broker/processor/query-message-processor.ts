/**
 * QUERY_MESSAGE (12): messages of a topic by key (KEYS or UNIQ_KEY) stored within a time range, through the store's
 * index; with the `_UNIQUE_KEY_QUERY=true` flag the broker uses its defaultQueryMaxNum (32) instead of the client's
 * maxNum. The body is the stored records back to back; the header carries indexLastUpdateTimestamp/Phyoffset.
 * VIEW_MESSAGE_BY_ID (33): the stored record at a commit-log offset (the client decodes the offset msgId).
 *
 * @see org.apache.rocketmq.broker.processor.QueryMessageProcessor
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { QueryMessage } from '../../../protocol/requests/query-message';
import { ViewMessage } from '../../../protocol/requests/view-message';
import type { QueryMessageResult } from '../../store/store-status';
import type { RemotingContext } from '../../transport/processor';

/** Java's MixAll.UNIQUE_MSG_QUERY_FLAG. */
export const UNIQUE_MSG_QUERY_FLAG = '_UNIQUE_KEY_QUERY';
/** Java's MessageStoreConfig.defaultQueryMaxNum default. */
export const DEFAULT_QUERY_MAX_NUM = 32;

/** What the processor needs of the controller. */
export interface QueryMessageController {
  readonly messageStoreConfig: object;
  readonly messageStore: {
    queryMessage?(topic: string, key: string, maxNum: number, begin: number, end: number): Promise<QueryMessageResult>;
    lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null>;
  };
}

export class QueryMessageProcessor {
  readonly requestCodes: readonly number[] = [RequestCode.QUERY_MESSAGE, RequestCode.VIEW_MESSAGE_BY_ID];

  constructor(private readonly controller: QueryMessageController) {}

  async processRequest(request: RemotingCommand, _ctx: RemotingContext): Promise<RemotingCommand | null> {
    return request.code === RequestCode.QUERY_MESSAGE ? this.queryMessage(request) : this.viewMessageById(request);
  }

  async queryMessage(request: RemotingCommand): Promise<RemotingCommand> {
    const h = QueryMessage.requestHeader.decode(request.extFields);
    let maxNum = h.maxNum;
    // Read as Java does (equals("true"), case-sensitive), not as the header's boolean (h.uniqueKeyQuery), which takes any case.
    if (request.extFields?.[UNIQUE_MSG_QUERY_FLAG] === 'true') {
      maxNum = (this.controller.messageStoreConfig as { defaultQueryMaxNum?: number }).defaultQueryMaxNum ?? DEFAULT_QUERY_MAX_NUM;
    }
    const store = this.controller.messageStore;
    const r: QueryMessageResult = store.queryMessage
      ? await store.queryMessage(h.topic, h.key, maxNum, h.beginTimestamp, h.endTimestamp)
      : { messages: [], indexLastUpdateTimestamp: 0, indexLastUpdatePhyoffset: 0, bufferTotalSize: 0 };
    const ext = QueryMessage.responseHeader.encode({
      indexLastUpdateTimestamp: r.indexLastUpdateTimestamp,
      indexLastUpdatePhyoffset: r.indexLastUpdatePhyoffset,
    });
    if (r.bufferTotalSize > 0) {
      return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, ext, Buffer.concat(r.messages, r.bufferTotalSize));
    }
    return RemotingCommand.createResponse(request, ResponseCode.QUERY_NOT_FOUND, 'can not find message, maybe time range not correct', ext);
  }

  async viewMessageById(request: RemotingCommand): Promise<RemotingCommand> {
    const h = ViewMessage.requestHeader.decode(request.extFields);
    const rec = h.offset >= 0 ? await this.controller.messageStore.lookMessageByOffset(h.offset) : null;
    if (rec) return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, rec);
    return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `can not find message by the offset, ${h.offset}`);
  }
}
