/**
 * The broker in DLedger mode (enableDLegerCommitLog=true): every put becomes a DLedger entry whose body is the
 * stored record (Java's layout, PHYSICALOFFSET set to the entry's pos + 48 as Java's AppendHook does). The DLedger
 * data files are the commit log: once a quorum holds an entry, every peer dispatches its record to the consume
 * queues and the index straight from the log, with commit-log offsets that are positions in those files (so they
 * only ever see committed messages, with the same queue offsets and the same commit-log offsets on every peer, and
 * a Java 4.9.8 DLedger broker reads our consume queues as we read its). Nothing is written twice.
 *
 * Role changes follow DLedgerRoleChangeHandler: the leader waits until everything in its log is committed and
 * applied, then serves as master (brokerId 0); followers and candidates serve as slaves (brokerId = n + 1 for
 * selfId `n<n>`) and refuse writes. Both re-register with the name servers at once.
 *
 * What was applied is where the consume queues end (Java's reput starts from their largest commit-log offset):
 * after a restart, kill -9 included, the entries after it are dispatched again from the log's files.
 *
 * @see org.apache.rocketmq.store.dledger.DLedgerCommitLog
 * @see org.apache.rocketmq.broker.dledger.DLedgerRoleChangeHandler
 */
import path from 'node:path';
import type { Logger } from '../../logger';
import fs from 'node:fs/promises';
import { DLedgerError, DLedgerResponseCode, DLedgerServer, type DLedgerConfig, type DLedgerEntry, BODY_OFFSET, defaultPath } from '../../dledger';
import type { DefaultMessageStore } from '../../store/message-store';
import { BrokerRole, StorePath, type MessageStoreConfig } from '../../store/message-store-config';
import { PutMessageStatus, type PutMessageResult } from '../../store/store-status';
import { layoutRecord } from '../../../protocol/message/message-decoder';
import { MessageSysFlag } from '../../../protocol/message/sys-flag';

/** Java MessageDecoder.PHY_POS_POSITION */
const PHY_POS_POSITION = 4 + 4 + 4 + 4 + 4 + 8;
const QUEUE_ID_POSITION = 4 + 4 + 4;
const QUEUE_OFFSET_POSITION = 4 + 4 + 4 + 4 + 4;

/**
 * The put status of an append the DLedger server refused or that failed, as Java's DLedgerCommitLog.putMessage maps
 * DLedgerResponseCode: no leader (or a full disk) → SERVICE_NOT_AVAILABLE; no quorum within maxWaitAckTimeMs, or
 * too many appends pending → OS_PAGECACHE_BUSY (answered SYSTEM_ERROR "[PC_SYNCHRONIZED]broker busy", which clients
 * retry; Java avoids FLUSH_SLAVE_TIMEOUT here because clients take it as stored); anything else → UNKNOWN_ERROR.
 */
export function putStatusOfAppendFailure(err: unknown): PutMessageStatus {
  const code = err instanceof DLedgerError ? err.code : DLedgerResponseCode.UNKNOWN;
  switch (code) {
    case DLedgerResponseCode.INCONSISTENT_LEADER:
    case DLedgerResponseCode.NOT_LEADER:
    case DLedgerResponseCode.LEADER_NOT_READY:
    case DLedgerResponseCode.DISK_FULL:
      return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    case DLedgerResponseCode.WAIT_QUORUM_ACK_TIMEOUT:
    case DLedgerResponseCode.LEADER_PENDING_FULL:
      return PutMessageStatus.OS_PAGECACHE_BUSY;
    default:
      return PutMessageStatus.UNKNOWN_ERROR;
  }
}

export interface DLedgerBroker {
  readonly messageStoreConfig: MessageStoreConfig;
  readonly brokerConfig: { brokerId: number };
  registerBrokerAll(checkOrderConfig: boolean, oneway: boolean, forceRegister: boolean): Promise<void>;
  /** Starts what only a master runs (delayed delivery, transaction checks). */
  changeToMaster(): Promise<void>;
  changeToSlave(): Promise<void>;
  /** Moves the topic config's data version on, with `stateVersion` (the term the broker leads in). */
  nextDataVersion(stateVersion: number): void;
}

export class DLedgerCommitLog {
  readonly server: DLedgerServer;
  #roleChain: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(
    private readonly store: DefaultMessageStore,
    private readonly broker: DLedgerBroker,
    extra: Partial<DLedgerConfig>,
    private readonly log: Logger,
  ) {
    const c = broker.messageStoreConfig;
    const conf: Partial<DLedgerConfig> = {
      group: c.dLegerGroup, selfId: c.dLegerSelfId, peers: c.dLegerPeers, storeBaseDir: c.storePathRootDir,
      mappedFileSizeForEntryData: c.mappedFileSizeCommitLog, preferredLeaderIds: c.preferredLeaderId || null,
      // As Java 4.9.8's DLedgerCommitLog: the broker's enableBatchPush, and diskMaxUsedSpaceRatio (a percentage) as
      // the ratio past which DLedger deletes expired files before their hour.
      enableBatchPush: c.enableBatchPush, diskSpaceRatioToCheckExpired: c.diskMaxUsedSpaceRatio / 100,
      ...this.#cleanConfig(), ...extra,
    };
    this.server = new DLedgerServer(conf, {
      logger: log,
      stateMachine: { lastAppliedIndex: () => this.#lastAppliedIndex(), apply: (e) => this.#apply(e) },
      appendHook: (encoded, pos) => {
        // Java's AppendHook: the record's PHYSICALOFFSET is where its body lies in the DLedger data files.
        encoded.writeBigInt64BE(BigInt(pos + BODY_OFFSET), BODY_OFFSET + PHY_POS_POSITION);
      },
    });
    this.server.onRoleChange((role, term) => {
      this.#roleChain = this.#roleChain.then(() => this.#handleRoleChange(role, term)).catch((err) => log.error({ err }, 'role change failed'));
    });
    // The DLedger data files as the store's commit log (Java's DLedgerCommitLog over dLedgerFileList).
    const files = this.server.store;
    store.useReplicatedLog({
      load: () => this.#load(),
      getMinOffset: () => files.minOffset,
      getMaxOffset: () => (files.committedPos > 0 ? files.committedPos : files.minOffset),
      getMaxWrotePosition: () => files.writePos,
      fileSize: this.server.config.mappedFileSizeForEntryData,
      read: (offset, size) => files.dataFileList.read(offset, size),
      deleteExpiredFiles: async (now) => {
        // Java's refreshConfig: the broker's cleanup settings as they are now (updateBrokerConfig may change them);
        // what the constructor's `extra` set stays.
        const conf = this.server.config;
        for (const [k, v] of Object.entries(this.#cleanConfig())) if (!(k in extra)) (conf as unknown as Record<string, unknown>)[k] = v;
        const r = await files.cleanSpace(now, this.server.appliedIndex);
        return r.count;
      },
    });
  }

  /**
   * The broker.conf keys Java 4.9.8's DLedgerCommitLog hands DLedger's cleanup: deleteWhen, fileReservedTime + 1 as
   * fileReservedHours, cleanFileForciblyEnable as enableDiskForceClean.
   */
  #cleanConfig(): Pick<DLedgerConfig, 'deleteWhen' | 'fileReservedHours' | 'enableDiskForceClean'> {
    const c = this.broker.messageStoreConfig;
    return { deleteWhen: c.deleteWhen, fileReservedHours: c.fileReservedTime + 1, enableDiskForceClean: c.cleanFileForciblyEnable };
  }

  /**
   * Loads the log's files for the store. A store written while this broker kept a second copy of every record (an
   * `applied` file beside the log, a local commit log, consume queues pointing into it) has that copy removed
   * first: the consume queues and the index are dispatched again from the log, with the same queue offsets.
   */
  async #load(): Promise<void> {
    const applied = path.join(defaultPath(this.server.config), 'applied');
    if (await fs.stat(applied).then(() => true, () => false)) {
      const root = this.store.config.storePathRootDir;
      const copies = [this.store.config.storePathCommitLog, StorePath.consumeQueue(root), StorePath.index(root)];
      this.log.warn({ copies }, 'removing the copy of the DLedger log kept by an earlier version; dispatching again from the log');
      for (const d of copies) await fs.rm(d, { recursive: true, force: true });
      for (const f of [applied, `${applied}.bak`, `${applied}.tmp`]) await fs.rm(f, { force: true });
    }
    await this.server.store.load();
  }

  /** The id a follower registers with: selfId n<k> → k + 1 (Java's DLedgerCommitLog id). */
  get slaveBrokerId(): number {
    return Number.parseInt(this.server.selfId.slice(1), 10) + 1;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.store.setLogReplicator({ replicate: (record) => this.#replicate(record) });
    this.#setSlave();
    await this.server.start();
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.store.setLogReplicator(null);
    await this.server.shutdown();
    await this.#roleChain;
  }

  async #replicate(record: Buffer): Promise<PutMessageResult> {
    // Only in the term whose leadership this broker took up as master: the queue offsets it predicts start from what
    // was dispatched then (a put in a later term, before its role change ran, could reuse another leader's offsets).
    if (!this.server.isLeader || this.server.currTerm !== this.#masterTerm || this.broker.messageStoreConfig.brokerRole === BrokerRole.SLAVE) {
      return { putMessageStatus: PutMessageStatus.SERVICE_NOT_AVAILABLE, appendMessageResult: null };
    }
    try {
      // The queue offset is taken only by an append that enters the log (Java: in the append, under its lock).
      const { result } = await this.server.append(record, this.#assignQueueOffset);
      return result as PutMessageResult;
    } catch (err) {
      // An entry that timed out waiting for a quorum is in the log and keeps its offset (it commits later or goes
      // with a leader change, which starts the predictions afresh); a refused append took none. After a failed write
      // the predictions are rebuilt from what was applied.
      if (err instanceof DLedgerError && err.code === DLedgerResponseCode.DISK_ERROR) this.#nextQueueOffset.clear();
      this.log.warn({ err }, 'dledger append failed');
      return { putMessageStatus: putStatusOfAppendFailure(err), appendMessageResult: null };
    }
  }

  /** The term in which this broker last took up the leadership as master (its queue-offset predictions are of it). */
  #masterTerm = -1;

  /** Queue offsets the leader predicted for entries not yet applied (`topic-queueId` → next). */
  #nextQueueOffset = new Map<string, number>();

  /**
   * Writes into the record the queue offset the apply will assign (Java assigns it at append time; the entry then
   * reads the same in a Java broker that opens this log). Prepared and rolled-back transaction messages take 0.
   */
  readonly #assignQueueOffset = (record: Buffer): void => {
    const l = layoutRecord(record);
    const tx = l.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    if (tx === MessageSysFlag.TRANSACTION_PREPARED_TYPE || tx === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) return;
    const topic = record.toString('utf8', l.topicPosition, l.topicPosition + l.topicLength);
    const queueId = record.readInt32BE(QUEUE_ID_POSITION);
    const key = `${topic}-${queueId}`;
    const next = this.#nextQueueOffset.get(key) ?? this.store.getNextQueueOffset(topic, queueId);
    this.#nextQueueOffset.set(key, next + 1);
    record.writeBigInt64BE(BigInt(next), QUEUE_OFFSET_POSITION);
  };

  /**
   * Dispatches a committed entry's record from where it lies in the log (entry pos + 48). On a follower the entry
   * may still be on its way to the files (a batch write): it is read by pulls as soon as it is dispatched.
   */
  async #apply(entry: DLedgerEntry): Promise<PutMessageResult> {
    const s = this.server.store;
    await s.whenWritten();
    if (entry.index === s.ledgerBeginIndex && s.ledgerBeginIndex > 0) {
      // The log's first entry after the log was rebuilt at the leader's (this peer was behind what the others deleted):
      // consume queues pointing only below it are dropped, and start again at the queue offsets the leader assigned.
      const end = this.store.maxPhysicOffsetInConsumeQueues();
      if (end > 0 && end <= s.minOffset) {
        this.log.warn({ consumeQueueEnd: end, minOffset: s.minOffset, index: entry.index }, 'consume queues point only below the rebuilt log: dropped');
        await this.store.cleanExpiredConsumerQueue();
      }
    }
    const r = await this.store.dispatchReplicated(entry.body, entry.pos + BODY_OFFSET);
    return r;
  }

  /**
   * The last entry applied: the one whose record ends where the consume queues end (Java's reput starts there).
   * Entries dispatched before a crash were committed, so the committed index is at least that far (its checkpoint
   * may be older). After an abnormal exit the consume queues may have lost their last entries (what a queue had not
   * yet handed to the OS): as the store's own abnormal recovery does, dispatch again from the data file whose first
   * record was stored before the checkpoint's consume-queue time (entries already there are skipped); from the
   * first entry when the store found a consume queue damaged.
   */
  async #lastAppliedIndex(): Promise<number> {
    const s = this.server.store;
    if (s.ledgerBeginIndex === -1) return -1;
    const end = this.store.maxPhysicOffsetInConsumeQueues();
    let applied = Math.min(end <= 0 ? s.ledgerBeginIndex - 1 : s.lastIndexEndingBy(end), s.ledgerEndIndex);
    if (applied > s.committedIndex) s.updateCommittedIndex(applied);
    const fromCq = applied;
    if (!this.store.lastExitOK) applied = Math.min(applied, await this.#indexBeforeSafeFile());
    // Queues the store found damaged were emptied: every entry is dispatched again (the others skip what they hold).
    if (this.store.damagedConsumeQueues.size > 0) applied = s.ledgerBeginIndex - 1;
    this.log.info({ applied, fromConsumeQueues: fromCq, consumeQueueEnd: end, lastExitOK: this.store.lastExitOK, committedIndex: s.committedIndex, ledgerEndIndex: s.ledgerEndIndex }, 'dledger log applied up to');
    return applied;
  }

  /**
   * The entry before the first one of the newest data file whose first record was stored at or before the
   * checkpoint's safe time (Java's recoverAbnormally picks its start file the same way); before the log's first
   * entry when no file qualifies.
   */
  async #indexBeforeSafeFile(): Promise<number> {
    const s = this.server.store;
    const c = this.store.config;
    const cp = this.store.checkpoint;
    let safe = Math.max(0, cp.logicsMsgTimestamp - 3000);
    if (c.messageIndexEnable && c.messageIndexSafe) safe = Math.min(safe, cp.indexMsgTimestamp);
    const files = s.dataFileList.files;
    for (let i = files.length - 1; i >= 0; i--) {
      const first = s.lastIndexEndingBy(files[i].from) + 1;
      const slot = s.slot(first);
      if (!slot) continue;
      const ts = await this.store.pickupStoreTimestamp(slot.pos + BODY_OFFSET, slot.size - BODY_OFFSET);
      if (ts >= 0 && ts <= safe) return first - 1;
    }
    return s.ledgerBeginIndex - 1;
  }

  /** The broker's and the store's copy of the role. */
  #setRole(role: BrokerRole): void {
    this.broker.messageStoreConfig.brokerRole = role;
    this.store.config.brokerRole = role;
  }

  #setSlave(): void {
    this.#setRole(BrokerRole.SLAVE);
    this.broker.brokerConfig.brokerId = this.slaveBrokerId;
  }

  async #handleRoleChange(role: string, term: number): Promise<void> {
    if (this.#stopped) return;
    if (role === 'LEADER') {
      // Serve as master once every entry of the log is committed and applied (the consume queues are complete).
      while (!this.#stopped) {
        if (!this.server.isLeader || this.server.currTerm !== term) return;
        const s = this.server;
        if (s.ledgerEndIndex === -1 || (s.ledgerEndIndex === s.committedIndex && s.appliedIndex === s.committedIndex)) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      if (this.#stopped) return;
      this.#nextQueueOffset.clear();
      this.#masterTerm = term;
      this.#setRole(BrokerRole.SYNC_MASTER);
      this.broker.brokerConfig.brokerId = 0;
      // The term it leads in as the data version's stateVersion: a name server (ours, Java 5.x) ignores a stale
      // registration of an older leader, e.g. one resumed after a pause that still registers as master.
      this.broker.nextDataVersion(term);
      await this.broker.changeToMaster().catch((err) => this.log.error({ err }, 'starting the master services failed'));
      this.log.info({ term }, 'dledger leader: serving as master');
    } else {
      if (this.broker.messageStoreConfig.brokerRole === BrokerRole.SLAVE && this.broker.brokerConfig.brokerId === this.slaveBrokerId) return;
      this.#setSlave();
      await this.broker.changeToSlave().catch((err) => this.log.error({ err }, 'stopping the master services failed'));
      this.log.info({ term, role }, 'dledger follower: serving as slave');
    }
    await this.broker.registerBrokerAll(true, false, true).catch((err) => this.log.warn({ err }, 'register after role change failed'));
  }
}
