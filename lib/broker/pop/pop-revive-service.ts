/**
 * Redelivers what was popped and not acknowledged within its invisible time: every checkpoint due (reviveTime ≤
 * now) has each unacknowledged message re-stored in the group's pop retry topic (`%RETRY%<group>_<topic>`, one
 * queue, created on demand), reconsumeTimes + 1, 1ST_POP_TIME kept from the first pop, then the checkpoint ends.
 * A message the store no longer holds is dropped. Checked every reviveIntervalMillis (100 ms), so a message
 * comes back within about that much after its invisible time plus the time to re-store it.
 *
 * @see org.apache.rocketmq.broker.processor.PopReviveService#reviveRetry (5.3.3)
 */
import type { PopController } from './pop-controller';
import { PermName } from '../../../protocol/body/perm-name';
import { KeyBuilder } from '../../../protocol/message/extra-info-util';
import { MessageConst } from '../../../protocol/message/message-const';
import { decodeMessage } from '../../../protocol/message/message-decoder';
import { propertiesToString } from '../../../protocol/message/properties';
import { PutMessageStatus } from '../../store/store-status';
import { ServiceLoop } from '../../util/service-loop';
import type { Logger } from '../../logger';
import type { PopCheckPoint, PopCheckPointStore } from './pop-checkpoint-store';

export interface PopReviveServiceOptions {
  reviveIntervalMillis?: number;
  /** The clock (tests inject one). */
  now?: () => number;
  logger: Logger;
}

export class PopReviveService {
  readonly #loop: ServiceLoop;
  readonly #now: () => number;
  readonly #log: Logger;
  /** Messages re-stored in a retry topic so far. */
  revivedCount = 0;

  constructor(private readonly controller: PopController, private readonly checkPoints: PopCheckPointStore, options: PopReviveServiceOptions) {
    this.#now = options.now ?? Date.now;
    this.#log = options.logger;
    this.#loop = new ServiceLoop({ name: 'PopReviveService', intervalMillis: options.reviveIntervalMillis ?? 100, logger: options.logger }, async () => {
      await this.reviveDue();
    });
  }

  start(): void {
    this.#loop.start();
  }

  async shutdown(): Promise<void> {
    await this.#loop.stop();
  }

  /** Revives every checkpoint due now (the loop's task; tests call it with their clock). */
  async reviveDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const now = this.#now();
      const ck = this.checkPoints.pollDue(now);
      if (!ck) return n;
      if (await this.#revive(ck)) {
        this.checkPoints.done(ck);
        n++;
      } else {
        this.checkPoints.retryLater(ck, now + 1000);
        return n;
      }
    }
  }

  async #revive(ck: PopCheckPoint): Promise<boolean> {
    const c = this.controller;
    const retryTopic = ck.topic.startsWith('%RETRY%') ? ck.topic : KeyBuilder.buildPopRetryTopicV1(ck.topic, ck.group);
    for (const offset of ck.offsets) {
      if (!ck.pending.has(offset)) continue;
      const r = await c.messageStore.getMessage(ck.group, ck.topic, ck.queueId, offset, 1);
      const rec = r.messages[0];
      if (!rec || r.messageQueueOffsets[0] !== offset) {
        this.#log.warn({ topic: ck.topic, queueId: ck.queueId, offset, group: ck.group }, 'revive: message not found, dropped');
        continue;
      }
      const m = decodeMessage(rec, 0, { decompressBody: false, clientMsgId: false });
      const props = { ...m.properties };
      delete props[MessageConst.PROPERTY_POP_CK];
      if (m.reconsumeTimes === 0 || props[MessageConst.PROPERTY_FIRST_POP_TIME] === undefined) {
        props[MessageConst.PROPERTY_FIRST_POP_TIME] = String(ck.popTime);
      }
      if (!c.topicConfigManager.selectTopicConfig(retryTopic)) {
        c.topicConfigManager.createTopicInSendMessageBackMethod(retryTopic, 1, PermName.PERM_WRITE | PermName.PERM_READ, 0);
      }
      const host = { host: c.storeHost.address, port: c.storeHost.port };
      const put = await c.messageStore.putMessage({
        topic: retryTopic,
        queueId: 0,
        flag: m.flag,
        body: m.body,
        propertiesString: propertiesToString(props),
        bornTimestamp: m.bornTimestamp,
        bornHost: host,
        storeHost: host,
        sysFlag: m.sysFlag,
        reconsumeTimes: m.reconsumeTimes + 1,
        preparedTransactionOffset: 0,
      });
      if (put.putMessageStatus !== PutMessageStatus.PUT_OK) {
        this.#log.error({ retryTopic, status: put.putMessageStatus }, 'revive: re-store failed, retried later');
        return false;
      }
      // Acknowledged in the checkpoint so that a retried revive does not store it twice.
      this.checkPoints.ack(ck.group, ck.topic, ck.queueId, ck.startOffset, ck.popTime, offset);
      this.revivedCount++;
    }
    return true;
  }
}
