/**
 * Held pulls (long polling): a pull that found nothing waits here, keyed by topic@queueId, until a matching
 * message arrives (the store's arriving listener), its suspend time runs out, or the periodic re-check (every 5 s
 * with long polling, every shortPollingTimeMills without, as Java) finds the queue moved past its offset.
 * A woken pull runs through the pull processor again, this time not allowed to suspend.
 *
 * @see org.apache.rocketmq.broker.longpolling.PullRequestHoldService
 * @see org.apache.rocketmq.broker.longpolling.PullRequest
 * @see org.apache.rocketmq.broker.longpolling.NotifyMessageArrivingListener
 */
import type { Logger } from '../../logger';
import type { RemotingContext } from '../../transport/processor';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import { ServiceLoop } from '../../util/service-loop';

/** The filter of a held pull: tags code of the arriving entry, then its properties string. */
export interface HeldPullFilter {
  isMatchedByConsumeQueue(tagsCode: number | null): boolean;
  isMatchedByCommitLog(propertiesString: string | null): boolean;
}

export interface PullRequest {
  request: RemotingCommand;
  ctx: RemotingContext;
  suspendTimestamp: number;
  timeoutMillis: number;
  pullFromThisOffset: number;
  messageFilter: HeldPullFilter | null;
}

export interface PullRequestHoldServiceOptions {
  longPollingEnable: boolean;
  shortPollingTimeMills: number;
  /** Current max offset of a queue (the store's getMaxOffsetInQueue). */
  getMaxOffset: (topic: string, queueId: number) => number;
  /** Re-runs a pull without suspension and writes its answer (PullMessageProcessor.executeRequestWhenWakeup). */
  wakeup: (request: RemotingCommand, ctx: RemotingContext) => void;
  logger: Logger;
}

const TOPIC_QUEUEID_SEPARATOR = '@';

export class PullRequestHoldService {
  readonly #table = new Map<string, PullRequest[]>();
  readonly #loop: ServiceLoop;
  #deadlineTimer: NodeJS.Timeout | null = null;
  #deadlineAt = Infinity;
  #running = false;

  constructor(private readonly options: PullRequestHoldServiceOptions) {
    this.#loop = new ServiceLoop(
      { name: 'PullRequestHoldService', intervalMillis: options.longPollingEnable ? 5000 : options.shortPollingTimeMills, logger: options.logger },
      () => this.checkHoldRequest(),
    );
  }

  start(): void {
    this.#running = true;
    this.#loop.start();
  }

  async shutdown(): Promise<void> {
    this.#running = false;
    await this.#loop.stop();
    if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = null;
    this.#deadlineAt = Infinity;
    this.#table.clear();
  }

  /** Number of pulls being held (diagnostics, tests). */
  get size(): number {
    let n = 0;
    for (const list of this.#table.values()) n += list.length;
    return n;
  }

  suspendPullRequest(topic: string, queueId: number, pullRequest: PullRequest): void {
    const key = topic + TOPIC_QUEUEID_SEPARATOR + queueId;
    let list = this.#table.get(key);
    if (!list) {
      list = [];
      this.#table.set(key, list);
    }
    list.push(pullRequest);
    this.#armDeadline(pullRequest.suspendTimestamp + pullRequest.timeoutMillis);
  }

  /** Re-checks every held pull against its queue's max offset (and answers the expired ones). */
  checkHoldRequest(): void {
    for (const key of [...this.#table.keys()]) {
      const i = key.lastIndexOf(TOPIC_QUEUEID_SEPARATOR);
      const topic = key.slice(0, i);
      const queueId = Number(key.slice(i + 1));
      try {
        this.notifyMessageArriving(topic, queueId, this.options.getMaxOffset(topic, queueId), null, null);
      } catch (err) {
        this.options.logger.error({ err, topic, queueId }, 'check hold request failed');
      }
    }
  }

  /**
   * A message arrived (or a re-check): wakes the held pulls of the queue whose offset is behind `maxOffset` and
   * whose filter matches (tagsCode/properties null: no per-message check), and those whose time is up.
   */
  notifyMessageArriving(topic: string, queueId: number, maxOffset: number, tagsCode: number | null, propertiesString: string | null): void {
    const key = topic + TOPIC_QUEUEID_SEPARATOR + queueId;
    const list = this.#table.get(key);
    if (!list || list.length === 0) return;
    const keep: PullRequest[] = [];
    const now = Date.now();
    for (const req of list) {
      let newestOffset = maxOffset;
      if (newestOffset <= req.pullFromThisOffset) newestOffset = this.options.getMaxOffset(topic, queueId);
      if (newestOffset > req.pullFromThisOffset) {
        let match = true;
        if (req.messageFilter && tagsCode !== null) match = req.messageFilter.isMatchedByConsumeQueue(tagsCode);
        if (match && req.messageFilter && propertiesString !== null) match = req.messageFilter.isMatchedByCommitLog(propertiesString);
        if (match) {
          this.#wake(req);
          continue;
        }
      }
      if (now >= req.suspendTimestamp + req.timeoutMillis) {
        this.#wake(req);
        continue;
      }
      keep.push(req);
    }
    if (keep.length === 0) this.#table.delete(key);
    else this.#table.set(key, keep);
  }

  #wake(req: PullRequest): void {
    try {
      this.options.wakeup(req.request, req.ctx);
    } catch (err) {
      this.options.logger.error({ err }, 'execute request when wakeup failed');
    }
  }

  /** One timer at the earliest deadline, so expired pulls are answered on time rather than at the next 5 s scan. */
  #armDeadline(at: number): void {
    if (!this.#running || at >= this.#deadlineAt) return;
    if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
    this.#deadlineAt = at;
    this.#deadlineTimer = setTimeout(() => this.#onDeadline(), Math.max(0, at - Date.now()));
    this.#deadlineTimer.unref();
  }

  #onDeadline(): void {
    this.#deadlineTimer = null;
    this.#deadlineAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [key, list] of [...this.#table]) {
      const keep: PullRequest[] = [];
      for (const req of list) {
        const deadline = req.suspendTimestamp + req.timeoutMillis;
        if (now >= deadline) this.#wake(req);
        else {
          keep.push(req);
          if (deadline < next) next = deadline;
        }
      }
      if (keep.length === 0) this.#table.delete(key);
      else this.#table.set(key, keep);
    }
    if (next !== Infinity) this.#armDeadline(next);
  }
}
