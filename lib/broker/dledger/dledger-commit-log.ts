/**
 * The broker in DLedger mode (enableDLegerCommitLog=true): every put becomes a DLedger entry whose body is the
 * stored record (Java's layout, PHYSICALOFFSET set to the entry's pos + 48 as Java's AppendHook does); once a
 * quorum holds it, every peer stores the committed record in its own commit log, in log order, which dispatches
 * it to the consume queues (so they only ever see committed messages, with the same queue offsets on every peer).
 *
 * Role changes follow DLedgerRoleChangeHandler: the leader waits until everything in its log is committed and
 * applied, then serves as master (brokerId 0); followers and candidates serve as slaves (brokerId = n + 1 for
 * selfId `n<n>`) and refuse writes. Both re-register with the name servers at once.
 *
 * The applied position survives restarts in `dledger-<selfId>/applied` (appliedIndex and the local commit log's
 * end then); records stored after the last save are counted from the commit log on start.
 *
 * @see org.apache.rocketmq.store.dledger.DLedgerCommitLog
 * @see org.apache.rocketmq.broker.dledger.DLedgerRoleChangeHandler
 */
import path from 'node:path';
import type { Logger } from '../../logger';
import { DLedgerError, DLedgerResponseCode, DLedgerServer, type DLedgerConfig, type DLedgerEntry, BODY_OFFSET, readProperties, writeProperties, defaultPath } from '../../dledger';
import type { DefaultMessageStore } from '../../store/message-store';
import { BrokerRole, type MessageStoreConfig } from '../../store/message-store-config';
import { PutMessageStatus, type PutMessageResult } from '../../store/store-status';
import { BLANK_MAGIC_CODE } from '../../store/stored-record';
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
}

export class DLedgerCommitLog {
  readonly server: DLedgerServer;
  #appliedFile: string;
  #saveTimer: NodeJS.Timeout | null = null;
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
      mappedFileSizeForEntryData: c.mappedFileSizeCommitLog, preferredLeaderIds: c.preferredLeaderId || null, ...extra,
    };
    this.server = new DLedgerServer(conf, {
      logger: log,
      stateMachine: { lastAppliedIndex: () => this.#loadApplied(), apply: (e) => this.#apply(e) },
      appendHook: (encoded, pos) => {
        // Java's AppendHook: the record's PHYSICALOFFSET is where its body lies in the DLedger data files.
        encoded.writeBigInt64BE(BigInt(pos + BODY_OFFSET), BODY_OFFSET + PHY_POS_POSITION);
      },
    });
    this.#appliedFile = path.join(defaultPath(this.server.config), 'applied');
    this.server.onRoleChange((role, term) => {
      this.#roleChain = this.#roleChain.then(() => this.#handleRoleChange(role, term)).catch((err) => log.error({ err }, 'role change failed'));
    });
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
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    await this.#saveApplied();
  }

  async #replicate(record: Buffer): Promise<PutMessageResult> {
    if (!this.server.isLeader || this.broker.messageStoreConfig.brokerRole === BrokerRole.SLAVE) {
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

  async #apply(entry: DLedgerEntry): Promise<PutMessageResult> {
    const r = await this.store.applyReplicated(entry.body);
    if (r.putMessageStatus !== PutMessageStatus.PUT_OK && r.putMessageStatus !== PutMessageStatus.FLUSH_DISK_TIMEOUT) {
      throw new Error(`apply of entry ${entry.index} failed: ${r.putMessageStatus}`);
    }
    this.#scheduleSave();
    return r;
  }

  /**
   * Saves the applied index a second after an apply (a save is five file operations; what was applied after the
   * saved point is found again at start by reading the commit log beyond it).
   */
  #scheduleSave(): void {
    if (this.#saveTimer || this.#stopped) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = null;
      void this.#saveApplied();
    }, 1000);
    this.#saveTimer.unref();
  }

  async #saveApplied(): Promise<void> {
    await writeProperties(this.#appliedFile, [['appliedIndex', String(this.server.appliedIndex)], ['phyOffset', String(this.store.getMaxPhyOffset())]])
      .catch((err) => this.log.error({ err }, 'saving the applied index failed'));
  }

  /** The last applied index: the saved one plus the records the commit log holds beyond the saved end. */
  async #loadApplied(): Promise<number> {
    const p = await readProperties(this.#appliedFile);
    let applied = Number(p.get('appliedIndex') ?? -1);
    let offset = Number(p.get('phyOffset') ?? 0);
    const max = this.store.getMaxPhyOffset();
    const fileSize = this.broker.messageStoreConfig.mappedFileSizeCommitLog;
    while (offset < max) {
      const rec = await this.store.lookMessageByOffset(offset);
      if (!rec || rec.length < 8) break;
      if (rec.readInt32BE(4) === BLANK_MAGIC_CODE) {
        offset = offset - (offset % fileSize) + fileSize;
        continue;
      }
      applied++;
      offset += rec.readInt32BE(0);
    }
    return applied;
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
      this.#setRole(BrokerRole.SYNC_MASTER);
      this.broker.brokerConfig.brokerId = 0;
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
