/**
 * Raw-protocol helpers for the broker integration tests: RemotingClient plus header codecs.
 */
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { SendMessageRequestHeader } from '../../../protocol/header/send-message-request-header';
import { SendMessageRequestHeaderV2, toSendMessageRequestHeaderV2 } from '../../../protocol/header/send-message-request-header-v2';
import { PullMessageRequestHeader } from '../../../protocol/header/pull-message-request-header';
import { propertiesToString } from '../../../protocol/message/properties';
import { encodeHeartbeatData, type HeartbeatData } from '../../../protocol/body/heartbeat-data';

export type SendWay = 'V1' | 'V2';

export function sendHeader(topic: string, props: Record<string, string> = {}, queueId = 0, extra: Partial<SendMessageRequestHeader> = {}): SendMessageRequestHeader {
  return {
    producerGroup: 'PG_TEST',
    topic,
    defaultTopic: 'TBW102',
    defaultTopicQueueNums: 4,
    queueId,
    sysFlag: 0,
    bornTimestamp: Date.now(),
    flag: 0,
    properties: propertiesToString({ UNIQ_KEY: `${Date.now()}${Math.random()}`, WAIT: 'true', ...props }),
    reconsumeTimes: 0,
    unitMode: false,
    batch: false,
    ...extra,
  };
}

export function sendRequest(way: SendWay, header: SendMessageRequestHeader, body: Buffer): RemotingCommand {
  if (way === 'V2') {
    return RemotingCommand.createRequest(RequestCode.SEND_MESSAGE_V2, SendMessageRequestHeaderV2.encode(toSendMessageRequestHeaderV2(header)), body);
  }
  return RemotingCommand.createRequest(RequestCode.SEND_MESSAGE, SendMessageRequestHeader.encode(header), body);
}

export function pullRequest(group: string, topic: string, queueId: number, queueOffset: number, opts: Partial<PullMessageRequestHeader> = {}): RemotingCommand {
  return RemotingCommand.createRequest(
    RequestCode.PULL_MESSAGE,
    PullMessageRequestHeader.encode({
      consumerGroup: group,
      topic,
      queueId,
      queueOffset,
      maxMsgNums: 32,
      sysFlag: 0x4,
      commitOffset: 0,
      suspendTimeoutMillis: 0,
      subscription: '*',
      subVersion: 0,
      expressionType: 'TAG',
      ...opts,
    }),
  );
}

export function heartbeat(clientID: string, group: string, topic: string, producer = false): RemotingCommand {
  const hb: HeartbeatData = {
    clientID,
    producerDataSet: producer ? [{ groupName: group }] : [],
    consumerDataSet: producer ? [] : [{
      groupName: group,
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      unitMode: false,
      subscriptionDataSet: [{ classFilterMode: false, topic, subString: '*', tagsSet: [], codeSet: [], subVersion: Date.now(), expressionType: 'TAG' }],
    }],
  };
  return RemotingCommand.createRequest(RequestCode.HEART_BEAT, null, encodeHeartbeatData(hb));
}

export function newClient(): RemotingClient {
  return new RemotingClient();
}
