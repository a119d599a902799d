/**
 * An in-memory message store for broker unit tests: records are encoded exactly as the real store lays them out
 * (encodeStoredMessage), one list per topic/queue, commit-log offsets growing with the record sizes.
 */
import { encodeStoredMessage, peekMessage } from '../../../protocol/message/message-decoder';
import { findProperty } from '../../../protocol/message/properties';
import type { MessageExtBrokerInner } from '../../../lib/store/commit-log';
import type { GetMessageResult, PutMessageResult, QueryMessageResult } from '../../../lib/store/store-status';

export class FakeMessageStore {
  readonly queues = new Map<string, Buffer[]>();
  readonly byOffset = new Map<number, Buffer>();
  commitLogOffset = 0;
  failPuts = 0;
  now: () => number = Date.now;
  storeHost = { address: '127.0.0.1', port: 10911 };
  arrivals: Array<(topic: string, queueId: number, logicOffset: number, tagsCode: number, storeTimestamp: number) => void> = [];

  queue(topic: string, queueId: number): Buffer[] {
    const k = `${topic}-${queueId}`;
    let q = this.queues.get(k);
    if (!q) {
      q = [];
      this.queues.set(k, q);
    }
    return q;
  }

  async putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult> {
    if (this.failPuts > 0) {
      this.failPuts--;
      return { putMessageStatus: 'SERVICE_NOT_AVAILABLE', appendMessageResult: null };
    }
    const q = this.queue(msg.topic, msg.queueId);
    const storeTimestamp = this.now();
    const rec = encodeStoredMessage({
      topic: msg.topic, flag: msg.flag, properties: msg.propertiesString, body: msg.body ?? Buffer.alloc(0),
      queueId: msg.queueId, queueOffset: q.length, commitLogOffset: this.commitLogOffset, sysFlag: msg.sysFlag,
      bornTimestamp: msg.bornTimestamp, bornHost: { address: msg.bornHost.host, port: msg.bornHost.port },
      storeTimestamp, storeHost: msg.storeHost ? { address: msg.storeHost.host, port: msg.storeHost.port } : this.storeHost,
      reconsumeTimes: msg.reconsumeTimes, preparedTransactionOffset: msg.preparedTransactionOffset,
    });
    const wroteOffset = this.commitLogOffset;
    this.byOffset.set(wroteOffset, rec);
    this.commitLogOffset += rec.length;
    q.push(rec);
    for (const a of this.arrivals) a(msg.topic, msg.queueId, q.length - 1, 0, storeTimestamp);
    return {
      putMessageStatus: 'PUT_OK',
      appendMessageResult: {
        status: 'PUT_OK', wroteOffset, wroteBytes: rec.length, msgId: '', storeTimestamp, logicsOffset: q.length - 1,
        pagecacheRT: 0, msgNum: 1,
      },
    };
  }

  async getMessage(_group: string, topic: string, queueId: number, offset: number, maxMsgNums: number): Promise<GetMessageResult> {
    const q = this.queue(topic, queueId);
    const messages = q.slice(offset, offset + maxMsgNums);
    return {
      status: messages.length > 0 ? 'FOUND' : 'OFFSET_OVERFLOW_ONE',
      nextBeginOffset: offset + messages.length, minOffset: 0, maxOffset: q.length, messages,
      messageQueueOffsets: messages.map((_, i) => offset + i),
      bufferTotalSize: messages.reduce((n, b) => n + b.length, 0), suggestPullingFromSlave: false,
    };
  }

  getMinOffsetInQueue(): number {
    return 0;
  }

  getMaxOffsetInQueue(topic: string, queueId: number): number {
    return this.queue(topic, queueId).length;
  }

  async lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null> {
    return this.byOffset.get(commitLogOffset) ?? null;
  }

  async queryMessage(topic: string, key: string, maxNum: number, begin: number, end: number): Promise<QueryMessageResult> {
    const messages: Buffer[] = [];
    for (const rec of this.byOffset.values()) {
      const p = peekMessage(rec);
      if (p.topic !== topic || p.storeTimestamp < begin || p.storeTimestamp > end) continue;
      const keys = (findProperty(p.propertiesString, 'KEYS') ?? '').split(' ');
      if (keys.includes(key) || findProperty(p.propertiesString, 'UNIQ_KEY') === key) messages.push(rec);
      if (messages.length >= maxNum) break;
    }
    return {
      messages, indexLastUpdateTimestamp: this.now(), indexLastUpdatePhyoffset: this.commitLogOffset,
      bufferTotalSize: messages.reduce((n, b) => n + b.length, 0),
    };
  }

  getMaxPhyOffset(): number {
    return this.commitLogOffset;
  }
}
