/**
 * DLedger's configuration: Java's option names and defaults (dledger-all-0.3.1.2).
 *
 * Paths: `<storeBaseDir>/dledger-<selfId>/` holds `data/` (entry files), `index/` (32-byte index units),
 * `checkpoint` (endIndex, committedIndex) and `currterm` (currTerm, voteLeader).
 *
 * @see io.openmessaging.storage.dledger.DLedgerConfig
 */
import path from 'node:path';
import { ConfigError } from '../errors';

export interface DLedgerConfig {
  group: string;
  selfId: string;
  /** `n0-127.0.0.1:40911;n1-127.0.0.1:40912;n2-127.0.0.1:40913` */
  peers: string;
  storeBaseDir: string;
  /** Data file folder; default `<storeBaseDir>/dledger-<selfId>/data`. */
  dataStorePath: string | null;
  maxPendingRequestsNum: number;
  maxWaitAckTimeMs: number;
  maxPushTimeOutMs: number;
  /**
   * Push several entries in one PUSH (batchEntry) when a follower is behind (Java's isEnableBatchPush; Java 0.3.1.2
   * defaults it to false, ours to true: a Java 0.3.1.2 follower takes both forms).
   */
  enableBatchPush: boolean;
  /** Bytes of entries in one batch push (Java's maxBatchPushSize; Java's default is 4 KiB, ours 256 KiB). */
  maxBatchPushSize: number;
  /**
   * PUSH requests in flight to one follower (ours; Java bounds a follower's unanswered entries by
   * maxPendingRequestsNum only, which bounds ours too).
   */
  maxInflightPushNum: number;
  heartBeatTimeIntervalMs: number;
  maxHeartBeatLeak: number;
  minVoteIntervalMs: number;
  maxVoteIntervalMs: number;
  flushFileInterval: number;
  checkPointInterval: number;
  mappedFileSizeForEntryData: number;
  mappedFileSizeForEntryIndex: number;
  preferredLeaderIds: string | null;
  maxLeadershipTransferWaitIndex: number;
  minTakeLeadershipVoteIntervalMs: number;
  maxTakeLeadershipVoteIntervalMs: number;
  leadershipTransferWaitTimeout: number;
  /**
   * Hours a data file is kept after its last write (CleanSpaceService deletes older ones). A broker sets it to its
   * fileReservedTime + 1, as Java 4.9.8's DLedgerCommitLog does.
   */
  fileReservedHours: number;
  /** Hours (`HH`, `;`-separated) at which expired data files are deleted whatever the disk use (broker: deleteWhen). */
  deleteWhen: string;
  /** Above this used ratio of the store's disk, expired data files are deleted at any hour. */
  diskSpaceRatioToCheckExpired: number;
  /** Above this used ratio, data files are deleted whatever their age (when enableDiskForceClean). */
  diskSpaceRatioToForceClean: number;
  /** Whether a disk above diskSpaceRatioToForceClean has files deleted before their time (broker: cleanFileForciblyEnable). */
  enableDiskForceClean: boolean;
  /** Bind address of the peer RPC server (ours; Java binds all interfaces on the peer's port). */
  bindAddress: string;
}

export const INDEX_UNIT_SIZE = 32;

export const DEFAULT_DLEDGER_CONFIG: Readonly<DLedgerConfig> = Object.freeze({
  group: 'default',
  selfId: 'n0',
  peers: 'n0-localhost:20911',
  storeBaseDir: path.join('/tmp', 'dledgerstore'),
  dataStorePath: null,
  maxPendingRequestsNum: 10000,
  maxWaitAckTimeMs: 2500,
  maxPushTimeOutMs: 1000,
  enableBatchPush: true,
  maxBatchPushSize: 256 * 1024,
  maxInflightPushNum: 8,
  heartBeatTimeIntervalMs: 2000,
  maxHeartBeatLeak: 3,
  minVoteIntervalMs: 300,
  maxVoteIntervalMs: 1000,
  flushFileInterval: 10,
  checkPointInterval: 3000,
  mappedFileSizeForEntryData: 1024 * 1024 * 1024,
  mappedFileSizeForEntryIndex: INDEX_UNIT_SIZE * 5 * 1024 * 1024,
  preferredLeaderIds: null,
  maxLeadershipTransferWaitIndex: 1000,
  minTakeLeadershipVoteIntervalMs: 30,
  maxTakeLeadershipVoteIntervalMs: 100,
  leadershipTransferWaitTimeout: 1000,
  fileReservedHours: 72,
  deleteWhen: '04',
  diskSpaceRatioToCheckExpired: 0.70,
  diskSpaceRatioToForceClean: 0.85,
  enableDiskForceClean: true,
  bindAddress: '0.0.0.0',
});

export function resolveDLedgerConfig(c: Partial<DLedgerConfig>): DLedgerConfig {
  const conf = { ...DEFAULT_DLEDGER_CONFIG, ...c };
  const peers = parsePeers(conf.peers);
  if (!peers.has(conf.selfId)) throw new ConfigError(`dLegerSelfId ${conf.selfId} is not in dLegerPeers ${conf.peers}`);
  return conf;
}

/** `n0-host:port;n1-host:port` → id → address (Java MemberState: the id is what precedes the first '-'). */
export function parsePeers(peers: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const p of peers.split(';')) {
    if (!p.trim()) continue;
    const id = p.split('-')[0].trim();
    const addr = p.slice(id.length + 1).trim();
    if (!id || !addr) throw new ConfigError(`bad dLegerPeers entry "${p}" (want id-host:port)`);
    m.set(id, addr);
  }
  if (m.size === 0) throw new ConfigError('dLegerPeers is empty');
  return m;
}

export function defaultPath(c: DLedgerConfig): string {
  return path.join(c.storeBaseDir, `dledger-${c.selfId}`);
}
export function dataStorePath(c: DLedgerConfig): string {
  return c.dataStorePath || path.join(defaultPath(c), 'data');
}
export function indexStorePath(c: DLedgerConfig): string {
  return path.join(defaultPath(c), 'index');
}
