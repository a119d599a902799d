/**
 * One DLedger peer: the member state (term, vote, role), the leader elector (VOTE, HEART_BEAT), the entry pusher
 * (PUSH with COMPARE / TRUNCATE / APPEND / COMMIT, quorum commit index), leadership transfer to preferredLeaderIds,
 * and a state machine fed with committed entries in order. Peers talk over lib/transport with DLedger's request
 * codes and fastjson bodies, as DLedgerRpcNettyService does.
 *
 * Timing follows DLedgerLeaderElector: a follower that misses `maxHeartBeatLeak` heartbeats becomes a candidate;
 * a candidate votes after a random pause in [minVoteIntervalMs, maxVoteIntervalMs]; a voter refuses a candidate
 * whose log ends in an older term or at a smaller index of the same term; a higher term answered TERM_NOT_READY
 * makes the voter a candidate of that term (it accepts on the candidate's immediate revote).
 *
 * @see io.openmessaging.storage.dledger.DLedgerServer
 * @see io.openmessaging.storage.dledger.DLedgerLeaderElector
 * @see io.openmessaging.storage.dledger.DLedgerEntryPusher
 * @see io.openmessaging.storage.dledger.MemberState
 */
import path from 'node:path';
import { RemotingClient, RemotingServer, parseAddress } from '../transport';
import { RemotingCommand } from '../../protocol/remoting-command';
import { componentLogger, type Logger } from '../logger';
import { RocketMQError } from '../errors';
import { Lifecycle } from '../util/lifecycle';
import { defaultPath, parsePeers, resolveDLedgerConfig, type DLedgerConfig } from './dledger-config';
import type { DLedgerEntry } from './dledger-entry';
import { DLedgerMmapFileStore, readProperties, writeProperties } from './dledger-mmap-file-store';
import {
  DLedgerRequestCode, DLedgerResponseCode, decodeHeartBeat, decodeLeadershipTransfer, decodePushEntryRequest,
  decodePushEntryResponse, decodeVoteRequest, decodeVoteResponse, encodeBody,
  type PushEntryRequest, type PushEntryResponse, type RequestOrResponse, type VoteRequest, type VoteResponse,
} from './dledger-protocol';

export const TERM_PERSIST_FILE = 'currterm';

/**
 * How long a vote round waits for answers, connecting included (Java's round waits for its vote latch 2-3 s); a
 * round decided before (a quorum accepted, a peer has a leader) ends at once.
 */
const VOTE_TIMEOUT_MILLIS = 1000;

/** How often the disk's fill is checked (Java's CleanSpaceService runs every 100 ms): appends stop and resume with it. */
export const DISK_CHECK_INTERVAL_MS = 100;

/** Entries waiting to be pushed that send a second push beside one in flight (see #pushEntries). */
export const PIPELINE_MIN_ENTRIES = 32;

export type Role = 'CANDIDATE' | 'LEADER' | 'FOLLOWER';

/** A DLedger failure with its DLedgerResponseCode. */
export class DLedgerError extends RocketMQError {
  constructor(readonly code: number, message: string) {
    super(`[${code}] ${message}`, { retriable: true });
  }
}

/** Applies committed entries in index order; what `apply` returns resolves the leader's append. */
export interface StateMachine {
  /** Index of the last entry already applied (from the state machine's own files); -1 when none. */
  lastAppliedIndex(): Promise<number>;
  apply(entry: DLedgerEntry): Promise<unknown>;
}

export interface DLedgerServerOptions {
  logger?: Logger;
  stateMachine?: StateMachine;
  /** Patches the encoded entry once its pos is known (Java's AppendHook). */
  appendHook?: (encoded: Buffer, pos: number) => void;
  now?: () => number;
}

/** What a follower's dispatcher sent, and how often its own timer woke it (a wake that no event gave). */
export interface PusherStats {
  /** APPEND pushes sent (one entry or a batch). */
  appendPushes: number;
  /** COMMIT pushes sent. */
  commitPushes: number;
  /** Entries sent in APPEND pushes. */
  entriesPushed: number;
  /** Turns the dispatcher's timer started (retries after a failure, the idle COMMIT once a second). */
  timerTurns: number;
  /** Entries sent by a turn the timer started: each one waited for a timer instead of being woken. */
  entriesPushedByTimer: number;
  /** Most pushes in flight at once. */
  maxInflight: number;
  /** The last index the follower acknowledged. */
  matchIndex: number;
}

/** One follower's dispatcher (Java's EntryDispatcher). */
interface PeerState {
  id: string;
  term: number;
  mode: 'COMPARE' | 'APPEND';
  /** Next index to push (Java's writeIndex). */
  nextIndex: number;
  matchIndex: number;
  compareIndex: number;
  lastCommitSent: number;
  lastPushTime: number;
  /** Bumped when the mode turns to COMPARE: answers to pushes of an earlier epoch are ignored. */
  epoch: number;
  inflight: number;
  busy: boolean;
  again: boolean;
  running: Promise<void>;
  notBefore: number;
  timer: NodeJS.Timeout | null;
  timerAt: number;
  stats: PusherStats;
}

/** An append waiting for its quorum; `deadline` (maxWaitAckTimeMs after it) is checked by the maintain loop. */
interface Pending { resolve: (v: { index: number; result: unknown }) => void; reject: (e: Error) => void; deadline: number }

export class DLedgerServer {
  readonly config: DLedgerConfig;
  readonly store: DLedgerMmapFileStore;
  readonly peers: Map<string, string>;
  readonly log: Logger;
  role: Role = 'CANDIDATE';
  currTerm = 0;
  currVoteFor: string | null = null;
  leaderId: string | null = null;
  knownMaxTermInGroup = -1;
  appliedIndex = -1;
  #server: RemotingServer;
  #client: RemotingClient;
  #lifecycle: Lifecycle;
  #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;
  #needIncreaseTermImmediately = false;
  #lastParseResult: 'WAIT_TO_REVOTE' | 'REVOTE_IMMEDIATELY' | 'PASSED' | 'WAIT_TO_VOTE_NEXT' = 'WAIT_TO_REVOTE';
  #nextTimeToRequestVote = 0;
  #voting = false;
  #lastLeaderHeartBeatTime = 0;
  #lastSendHeartBeatTime = -1;
  #lastSuccHeartBeatTime = 0;
  #heartbeating = false;
  #peerStates = new Map<string, PeerState>();
  #pending = new Map<number, Pending>();
  #selfWritten = -1;
  #pushChain: Promise<unknown> = Promise.resolve();
  #applying = false;
  #roleListeners = new Set<(role: Role, term: number, leaderId: string | null) => void>();
  #lastCheckPoint = 0;
  #lastFlush = 0;
  #lastDiskCheck = 0;
  #diskChecking = false;
  #takingLeadership = false;
  #transferring: string | null = null;
  #stateMachine: StateMachine | null;
  #appendHook: ((encoded: Buffer, pos: number) => void) | undefined;

  constructor(config: Partial<DLedgerConfig>, options: DLedgerServerOptions = {}) {
    this.config = resolveDLedgerConfig(config);
    this.peers = parsePeers(this.config.peers);
    this.log = componentLogger('dledger', options.logger).child({ group: this.config.group, selfId: this.config.selfId });
    this.store = new DLedgerMmapFileStore(this.config, this.log);
    this.#now = options.now ?? Date.now;
    this.#stateMachine = options.stateMachine ?? null;
    this.#appendHook = options.appendHook;
    const self = parseAddress(this.peers.get(this.config.selfId)!);
    this.#server = new RemotingServer({ bindAddress: this.config.bindAddress, listenPort: self.port, logger: this.log, serverChannelMaxIdleTimeSeconds: 0 });
    this.#client = new RemotingClient({ logger: this.log });
    this.#server.registerProcessor(DLedgerRequestCode.VOTE, (req) => this.#respond(req, this.handleVote(decodeVoteRequest(req.body), false)));
    this.#server.registerProcessor(DLedgerRequestCode.HEART_BEAT, (req) => this.#respond(req, this.handleHeartBeat(decodeHeartBeat(req.body))));
    this.#server.registerProcessor(DLedgerRequestCode.PUSH, async (req) => this.#respond(req, await this.#serialPush(decodePushEntryRequest(req.body))));
    this.#server.registerProcessor(DLedgerRequestCode.LEADERSHIP_TRANSFER, (req) => this.#respond(req, this.#handleTakeLeadership(decodeLeadershipTransfer(req.body))));
    for (const code of [DLedgerRequestCode.METADATA, DLedgerRequestCode.APPEND, DLedgerRequestCode.GET, DLedgerRequestCode.PULL]) {
      this.#server.registerProcessor(code, (req) => this.#respond(req, { ...this.#base(''), code: DLedgerResponseCode.UNSUPPORTED }));
    }
    this.#lifecycle = new Lifecycle(() => this.#start(), () => this.#shutdown());
  }

  get selfId(): string {
    return this.config.selfId;
  }
  get isLeader(): boolean {
    return this.role === 'LEADER';
  }
  get ledgerEndIndex(): number {
    return this.store.ledgerEndIndex;
  }
  get committedIndex(): number {
    return this.store.committedIndex;
  }
  get listenPort(): number {
    return this.#server.port;
  }
  /**
   * The peer RPC server, for a user of the log that serves its own request codes on the same port (Java's
   * DLedgerServer.getRemotingServer: the controller answers brokers there). Register before start().
   */
  get remotingServer(): RemotingServer {
    return this.#server;
  }

  onRoleChange(l: (role: Role, term: number, leaderId: string | null) => void): () => void {
    this.#roleListeners.add(l);
    return () => this.#roleListeners.delete(l);
  }

  start(): Promise<void> {
    return this.#lifecycle.start();
  }
  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  async #start(): Promise<void> {
    await this.store.load();
    this.#selfWritten = this.store.ledgerEndIndex;
    const t = await readProperties(path.join(defaultPath(this.config), TERM_PERSIST_FILE));
    this.currTerm = Number(t.get('currTerm') ?? 0) || 0;
    const v = t.get('voteLeader');
    this.currVoteFor = v ? v : null;
    this.appliedIndex = this.#stateMachine ? await this.#stateMachine.lastAppliedIndex() : this.store.committedIndex;
    await this.#server.listen();
    this.#stopped = false;
    this.#lastLeaderHeartBeatTime = this.#now();
    this.#nextTimeToRequestVote = this.#now() + this.#randomVoteInterval();
    this.#schedule(0);
    void this.#applyCommitted();
    this.log.info({ term: this.currTerm, ledgerEndIndex: this.store.ledgerEndIndex, committedIndex: this.store.committedIndex, appliedIndex: this.appliedIndex }, 'dledger server started');
  }

  async #shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#failPending(DLedgerResponseCode.TERM_CHANGED, 'server shut down');
    this.#stopPushers();
    await this.#server.shutdown();
    await this.#client.shutdown();
    for (const st of this.#peerStates.values()) await st.running;
    await this.#pushChain.catch(() => undefined);
    while (this.#applying) await new Promise((r) => setTimeout(r, 5));
    await this.store.shutdown();
    await this.#persistTerm();
  }

  // ---- member state ----

  #termChain: Promise<void> = Promise.resolve();

  #persistTerm(): Promise<void> {
    this.#termChain = this.#termChain.then(() => this.#writeTerm());
    return this.#termChain;
  }

  #writeTerm(): Promise<void> {
    return writeProperties(path.join(defaultPath(this.config), TERM_PERSIST_FILE), [['currTerm', String(this.currTerm)], ['voteLeader', this.currVoteFor ?? '']])
      .catch((err) => this.log.error({ err }, 'persist currterm failed'));
  }

  #setCurrVoteFor(id: string | null): void {
    this.currVoteFor = id;
    void this.#persistTerm();
  }

  #nextTerm(): number {
    this.currTerm = this.knownMaxTermInGroup > this.currTerm ? this.knownMaxTermInGroup : this.currTerm + 1;
    this.currVoteFor = null;
    void this.#persistTerm();
    return this.currTerm;
  }

  #changeRole(role: Role, term: number, leaderId: string | null): void {
    const was = this.role;
    const wasLeaderId = this.leaderId;
    if (term > this.currTerm) {
      this.currTerm = term;
      this.currVoteFor = null;
      void this.#persistTerm();
    }
    this.role = role;
    this.leaderId = leaderId;
    if (was === 'LEADER' && role !== 'LEADER') {
      this.#failPending(DLedgerResponseCode.TERM_CHANGED, 'leadership lost');
      this.#stopPushers();
    }
    if (was !== role || wasLeaderId !== leaderId) {
      this.log.info({ role, term: this.currTerm, leaderId }, 'dledger role change');
      for (const l of this.#roleListeners) {
        try {
          l(role, this.currTerm, leaderId);
        } catch (err) {
          this.log.error({ err }, 'role change listener failed');
        }
      }
    }
  }

  #changeRoleToCandidate(term: number): void {
    if (term >= this.currTerm) {
      if (term > this.knownMaxTermInGroup) this.knownMaxTermInGroup = term;
      this.#changeRole('CANDIDATE', this.currTerm, null);
      this.#lastParseResult = 'WAIT_TO_REVOTE';
      this.#nextTimeToRequestVote = this.#now() + this.#randomVoteInterval();
    }
  }

  #changeRoleToFollower(term: number, leaderId: string): void {
    this.#lastLeaderHeartBeatTime = this.#now();
    this.#changeRole('FOLLOWER', term, leaderId);
  }

  #randomVoteInterval(): number {
    const { minVoteIntervalMs: a, maxVoteIntervalMs: b } = this.config;
    return a + Math.floor(Math.random() * Math.max(1, b - a));
  }

  #isQuorum(n: number): boolean {
    return n >= Math.floor(this.peers.size / 2) + 1;
  }

  // ---- the maintain loop (DLedgerLeaderElector's thread) ----

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      try {
        this.#maintain();
      } catch (err) {
        this.log.error({ err }, 'dledger maintain failed');
      }
      this.#schedule(10);
    }, delay);
    this.#timer.unref();
  }

  #maintain(): void {
    const now = this.#now();
    if (this.#pending.size > 0) this.#expirePending(now);
    if (this.role === 'LEADER') {
      if (this.#lastSendHeartBeatTime < 0 || now - this.#lastSendHeartBeatTime >= this.config.heartBeatTimeIntervalMs) void this.#sendHeartbeats();
      this.#checkPreferredLeader();
    } else if (this.role === 'FOLLOWER') {
      if (now - this.#lastLeaderHeartBeatTime > this.config.maxHeartBeatLeak * this.config.heartBeatTimeIntervalMs) {
        this.log.info({ leaderId: this.leaderId, term: this.currTerm }, 'leader heartbeat lost; becoming candidate');
        this.#changeRoleToCandidate(this.currTerm);
        // Its first round at once, in the lost leader's term (Java's changeRoleToCandidate leaves the time of the next
        // round as it was, long past): the random pauses come between rounds.
        this.#nextTimeToRequestVote = now;
      }
    } else if ((now >= this.#nextTimeToRequestVote || this.#needIncreaseTermImmediately) && !this.#voting) void this.#voteRound();
    if (now - this.#lastFlush >= this.config.flushFileInterval) {
      this.#lastFlush = now;
      void this.store.flush().catch((err) => this.log.error({ err }, 'dledger flush failed'));
    }
    if (now - this.#lastDiskCheck >= DISK_CHECK_INTERVAL_MS && !this.#diskChecking) {
      this.#lastDiskCheck = now;
      this.#diskChecking = true;
      void this.store.checkDiskFull().catch((err) => this.log.error({ err }, 'dledger disk check failed')).finally(() => {
        this.#diskChecking = false;
      });
    }
    if (now - this.#lastCheckPoint >= this.config.checkPointInterval) {
      this.#lastCheckPoint = now;
      void this.store.persistCheckPoint().catch((err) => this.log.error({ err }, 'dledger checkpoint failed'));
    }
  }

  #base(remoteId: string): RequestOrResponse {
    return { group: this.config.group, remoteId, localId: this.selfId, code: DLedgerResponseCode.SUCCESS, leaderId: this.leaderId, term: this.currTerm };
  }

  #respond(req: RemotingCommand, body: RequestOrResponse): RemotingCommand {
    return RemotingCommand.createResponse(req, DLedgerResponseCode.SUCCESS, null, null, encodeBody(body as RequestOrResponse & Record<string, unknown>));
  }

  async #invoke<T extends RequestOrResponse>(peerId: string, code: number, body: RequestOrResponse & Record<string, unknown>, decode: (b: Buffer | null) => T, timeout = 3000): Promise<T> {
    try {
      const res = await this.#client.invoke(this.peers.get(peerId)!, RemotingCommand.createRequest(code, null, encodeBody(body)), timeout);
      return decode(res.body);
    } catch {
      return { ...this.#base(peerId), code: DLedgerResponseCode.NETWORK_ERROR } as T;
    }
  }

  // ---- election ----

  async #voteRound(): Promise<void> {
    this.#voting = true;
    try {
      let term: number;
      if (this.#needIncreaseTermImmediately || this.#lastParseResult === 'WAIT_TO_VOTE_NEXT') {
        this.#needIncreaseTermImmediately = false;
        term = this.#nextTerm();
      } else term = this.currTerm;
      const endIndex = this.store.ledgerEndIndex;
      const endTerm = this.store.ledgerEndTerm;
      const startedAt = this.#now();
      const calls: Promise<VoteResponse>[] = [];
      for (const id of this.peers.keys()) {
        const req: VoteRequest = { ...this.#base(id), leaderId: this.selfId, term, ledgerEndIndex: endIndex, ledgerEndTerm: endTerm };
        calls.push(id === this.selfId ? Promise.resolve(this.handleVote(req, true)) : this.#invoke(id, DLedgerRequestCode.VOTE, req as VoteRequest & Record<string, unknown>, decodeVoteResponse, VOTE_TIMEOUT_MILLIS));
      }
      const responses = await this.#decidingVotes(calls, VOTE_TIMEOUT_MILLIS);
      if (this.#stopped || this.role !== 'CANDIDATE' || this.currTerm !== term) return;
      let knownMaxTerm = -1;
      let alreadyHasLeader = false;
      let valid = 0;
      let accept = 0;
      let notReady = 0;
      let biggerLedger = 0;
      for (const r of responses) {
        if (r.code === DLedgerResponseCode.NETWORK_ERROR || r.voteResult === 'UNKNOWN') continue;
        valid++;
        switch (r.voteResult) {
          case 'ACCEPT': accept++; break;
          case 'REJECT_ALREADY_HAS_LEADER': alreadyHasLeader = true; break;
          case 'REJECT_TERM_SMALL_THAN_LEDGER':
          case 'REJECT_EXPIRED_VOTE_TERM': if (r.term > knownMaxTerm) knownMaxTerm = r.term; break;
          case 'REJECT_EXPIRED_LEDGER_TERM':
          case 'REJECT_SMALL_LEDGER_END_INDEX': biggerLedger++; break;
          case 'REJECT_TERM_NOT_READY': notReady++; break;
          default: break;
        }
      }
      const now = this.#now();
      if (knownMaxTerm > term) {
        this.#lastParseResult = 'WAIT_TO_VOTE_NEXT';
        this.#nextTimeToRequestVote = now + this.#randomVoteInterval();
        this.#changeRoleToCandidate(knownMaxTerm);
      } else if (alreadyHasLeader || !this.#isQuorum(valid)) {
        // A peer that has a leader: Java waits maxHeartBeatLeak heartbeats more (6 s by default). A peer that still
        // follows the lost leader is most often one whose own count of missed heartbeats ends a few ms after ours:
        // with 6 s more, the group's failover took 6 s longer whenever the follower that asked first was refused so
        // (Java 4.9.8's 15.7 s run in docs/chaos.md). Asking again sooner in the same term cannot depose a leader
        // that is alive: a peer that follows it refuses the same term again.
        this.#lastParseResult = 'WAIT_TO_REVOTE';
        this.#nextTimeToRequestVote = now + this.#randomVoteInterval();
      } else if (!this.#isQuorum(valid - biggerLedger)) {
        // A peer holds more of the log: it asks first (Java waits maxVoteIntervalMs longer here).
        this.#lastParseResult = 'WAIT_TO_REVOTE';
        this.#nextTimeToRequestVote = now + this.#randomVoteInterval() + this.config.maxVoteIntervalMs;
      } else if (this.#isQuorum(accept)) {
        this.#lastParseResult = 'PASSED';
      } else if (this.#isQuorum(accept + notReady)) {
        this.#lastParseResult = 'REVOTE_IMMEDIATELY';
        this.#nextTimeToRequestVote = now;
      } else {
        this.#lastParseResult = 'WAIT_TO_VOTE_NEXT';
        this.#nextTimeToRequestVote = now + this.#randomVoteInterval();
      }
      this.log.info({
        term, costMs: now - startedAt, answered: responses.length, valid, accept, notReady, biggerLedger, alreadyHasLeader, knownMaxTerm,
        result: this.#lastParseResult, nextInMs: this.#lastParseResult === 'PASSED' ? 0 : this.#nextTimeToRequestVote - now,
      }, 'vote round');
      if (this.#lastParseResult === 'PASSED') this.#changeToLeader(term);
    } finally {
      this.#voting = false;
    }
  }

  /**
   * The vote answers, as soon as they decide the round (Java's vote latch counts down then): a quorum accepted, or
   * accepted plus not ready, or a peer has a leader; else all of them, or those in by `deadlineMs` (Java's latch
   * wait): a peer cut off before the round had no connection to it yet, and connecting to it fails only after the
   * client's 3 s connect timeout, which the request's own timeout does not cover. A round that has its quorum does not
   * wait for an unreachable peer.
   */
  #decidingVotes(calls: Promise<VoteResponse>[], deadlineMs: number): Promise<VoteResponse[]> {
    return new Promise((resolve) => {
      const got: VoteResponse[] = [];
      let accept = 0;
      let notReady = 0;
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        resolve(got);
      }, deadlineMs);
      timer.unref();
      for (const call of calls) {
        void call.then((r) => {
          if (done) return;
          got.push(r);
          if (r.code !== DLedgerResponseCode.NETWORK_ERROR) {
            if (r.voteResult === 'ACCEPT') accept++;
            else if (r.voteResult === 'REJECT_TERM_NOT_READY') notReady++;
          }
          const hasLeader = r.code !== DLedgerResponseCode.NETWORK_ERROR && r.voteResult === 'REJECT_ALREADY_HAS_LEADER';
          if (got.length === calls.length || hasLeader || this.#isQuorum(accept) || this.#isQuorum(accept + notReady)) {
            done = true;
            clearTimeout(timer);
            resolve(got);
          }
        });
      }
    });
  }

  handleVote(req: VoteRequest, self: boolean): VoteResponse {
    const res = (voteResult: VoteResponse['voteResult']): VoteResponse =>
      ({ group: req.group, remoteId: req.localId, localId: this.selfId, code: DLedgerResponseCode.SUCCESS, leaderId: this.leaderId, term: this.currTerm, voteResult });
    if (!this.peers.has(req.leaderId ?? '')) return res('REJECT_UNKNOWN_LEADER');
    if (!self && req.leaderId === this.selfId) return res('REJECT_UNEXPECTED_LEADER');
    if (req.ledgerEndTerm < this.store.ledgerEndTerm) return res('REJECT_EXPIRED_LEDGER_TERM');
    if (req.ledgerEndTerm === this.store.ledgerEndTerm && req.ledgerEndIndex < this.store.ledgerEndIndex) return res('REJECT_SMALL_LEDGER_END_INDEX');
    if (req.term < this.currTerm) return res('REJECT_EXPIRED_VOTE_TERM');
    if (req.term === this.currTerm) {
      if (this.currVoteFor !== null && this.currVoteFor !== req.leaderId) {
        return res(this.leaderId !== null ? 'REJECT_ALREADY_HAS_LEADER' : 'REJECT_ALREADY_VOTED');
      }
    } else {
      // Java answers REJECT_TERM_NOT_READY and moves to the term on its next round; taking the term at once (as
      // Raft does) lets the vote count now and avoids two candidates outbidding each other forever.
      this.#changeRoleToCandidate(req.term);
      this.currTerm = req.term;
      this.currVoteFor = null;
      this.#nextTimeToRequestVote = this.#now() + this.#randomVoteInterval();
    }
    if (req.term < this.store.ledgerEndTerm) return res('REJECT_TERM_SMALL_THAN_LEDGER');
    if (!self && this.#takingLeadership && req.ledgerEndTerm === this.store.ledgerEndTerm && this.store.ledgerEndIndex >= req.ledgerEndIndex) {
      return res('REJECT_TAKING_LEADERSHIP');
    }
    this.#setCurrVoteFor(req.leaderId);
    return res('ACCEPT');
  }

  #changeToLeader(term: number): void {
    // What this peer wrote as a follower counts towards the quorum too.
    this.#selfWritten = this.store.ledgerEndIndex;
    this.#takingLeadership = false;
    this.#transferring = null;
    this.#lastSendHeartBeatTime = -1;
    this.#lastSuccHeartBeatTime = this.#now();
    this.#changeRole('LEADER', term, this.selfId);
    this.#stopPushers();
    this.#peerStates.clear();
    for (const id of this.peers.keys()) {
      if (id === this.selfId) continue;
      const st: PeerState = {
        id, term, mode: 'COMPARE', nextIndex: -1, matchIndex: -1, compareIndex: -1, lastCommitSent: -2, lastPushTime: 0, epoch: 0, inflight: 0,
        busy: false, again: false, running: Promise.resolve(), notBefore: 0, timer: null, timerAt: 0,
        stats: { appendPushes: 0, commitPushes: 0, entriesPushed: 0, timerTurns: 0, entriesPushedByTimer: 0, maxInflight: 0, matchIndex: -1 },
      };
      this.#peerStates.set(id, st);
      this.#wakePusher(st, false);
    }
    // Alone in its group, a leader commits what it holds at once (Java's QuorumAckChecker counts its own ledger end
    // on every turn): after a restart its checkpoint's committed index may be older than its log.
    this.#updateCommitIndex();
    void this.#sendHeartbeats();
  }

  async #sendHeartbeats(): Promise<void> {
    if (this.#heartbeating) return;
    this.#heartbeating = true;
    this.#lastSendHeartBeatTime = this.#now();
    const term = this.currTerm;
    try {
      const calls = [...this.peers.keys()].filter((id) => id !== this.selfId)
        .map((id) => this.#invoke(id, DLedgerRequestCode.HEART_BEAT, { ...this.#base(id), leaderId: this.selfId, term }, decodeHeartBeat, this.config.heartBeatTimeIntervalMs));
      const rs = await Promise.all(calls);
      if (this.role !== 'LEADER' || this.currTerm !== term || this.#stopped) return;
      let succ = 0;
      let notReady = 0;
      let maxTerm = -1;
      let inconsistentLeader = false;
      for (const r of rs) {
        if (r.code === DLedgerResponseCode.SUCCESS) succ++;
        else if (r.code === DLedgerResponseCode.EXPIRED_TERM) maxTerm = Math.max(maxTerm, r.term);
        else if (r.code === DLedgerResponseCode.INCONSISTENT_LEADER) inconsistentLeader = true;
        else if (r.code === DLedgerResponseCode.TERM_NOT_READY) notReady++;
      }
      const now = this.#now();
      if (this.#isQuorum(succ + 1)) this.#lastSuccHeartBeatTime = now;
      else if (this.#isQuorum(succ + notReady + 1)) this.#lastSendHeartBeatTime = -1;
      else if (maxTerm > term) this.#changeRoleToCandidate(maxTerm);
      else if (inconsistentLeader) this.#changeRoleToCandidate(term);
      else if (now - this.#lastSuccHeartBeatTime > this.config.heartBeatTimeIntervalMs * this.config.maxHeartBeatLeak) this.#changeRoleToCandidate(term);
    } finally {
      this.#heartbeating = false;
    }
  }

  handleHeartBeat(req: RequestOrResponse): RequestOrResponse {
    const res = (code: number): RequestOrResponse => ({ group: req.group, remoteId: req.localId, localId: this.selfId, code, leaderId: this.leaderId, term: this.currTerm });
    if (!this.peers.has(req.leaderId ?? '')) return res(DLedgerResponseCode.UNKNOWN_MEMBER);
    if (req.leaderId === this.selfId) return res(DLedgerResponseCode.UNEXPECTED_MEMBER);
    if (req.term < this.currTerm) return res(DLedgerResponseCode.EXPIRED_TERM);
    if (req.term === this.currTerm) {
      if (this.leaderId === null) {
        this.#changeRoleToFollower(req.term, req.leaderId!);
        return res(DLedgerResponseCode.SUCCESS);
      }
      if (this.leaderId === req.leaderId) {
        this.#lastLeaderHeartBeatTime = this.#now();
        return res(DLedgerResponseCode.SUCCESS);
      }
      return res(DLedgerResponseCode.INCONSISTENT_LEADER);
    }
    this.#changeRoleToCandidate(req.term);
    this.#needIncreaseTermImmediately = true;
    return res(DLedgerResponseCode.TERM_NOT_READY);
  }

  // ---- leadership transfer ----

  #checkPreferredLeader(): void {
    const preferred = this.config.preferredLeaderIds?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
    if (preferred.length === 0 || preferred.includes(this.selfId) || this.#transferring) return;
    for (const id of preferred) {
      const st = this.#peerStates.get(id);
      if (!st || st.mode !== 'APPEND' || st.matchIndex < this.store.ledgerEndIndex || this.#selfWritten < this.store.ledgerEndIndex) continue;
      this.#transferring = id;
      const term = this.currTerm;
      const req = { ...this.#base(id), leaderId: this.selfId, term, transferId: this.selfId, transfereeId: id, takeLeadershipLedgerIndex: this.store.ledgerEndIndex };
      void this.#invoke(id, DLedgerRequestCode.LEADERSHIP_TRANSFER, req, decodeHeartBeat, this.config.leadershipTransferWaitTimeout).then((r) => {
        this.log.info({ transferee: id, code: r.code }, 'leadership transfer answered');
        setTimeout(() => {
          if (this.#transferring === id && this.role === 'LEADER' && this.currTerm === term) this.#transferring = null;
        }, this.config.leadershipTransferWaitTimeout * 3).unref();
      });
      return;
    }
  }

  #handleTakeLeadership(req: RequestOrResponse & { transfereeId: string; takeLeadershipLedgerIndex: number }): RequestOrResponse {
    const res = (code: number): RequestOrResponse => ({ ...this.#base(req.localId), code });
    if (req.transfereeId !== this.selfId || req.term !== this.currTerm || this.role !== 'FOLLOWER') return res(DLedgerResponseCode.INCONSISTENT_STATE);
    if (this.store.ledgerEndIndex < req.takeLeadershipLedgerIndex) return res(DLedgerResponseCode.TAKE_LEADERSHIP_FAILED);
    this.#takingLeadership = true;
    this.#changeRoleToCandidate(this.currTerm);
    this.#needIncreaseTermImmediately = true;
    this.#nextTimeToRequestVote = this.#now();
    return res(DLedgerResponseCode.SUCCESS);
  }

  // ---- append (leader) ----

  /**
   * Appends `body` as the leader; resolves once a quorum holds it and the state machine applied it. `prepare` is
   * called with the body once the append is accepted, just before it enters the log (not for an append refused as
   * NOT_LEADER, LEADER_TRANSFERRING, LEADER_PENDING_FULL or DISK_FULL): what it writes into the body is what the log holds.
   */
  append(body: Buffer, prepare?: (body: Buffer) => void): Promise<{ index: number; result: unknown }> {
    if (this.role !== 'LEADER') return Promise.reject(new DLedgerError(DLedgerResponseCode.NOT_LEADER, `not leader (leader ${this.leaderId})`));
    if (this.#transferring) return Promise.reject(new DLedgerError(DLedgerResponseCode.LEADER_TRANSFERRING, 'leadership transfer under way'));
    if (this.#pending.size >= this.config.maxPendingRequestsNum) return Promise.reject(new DLedgerError(DLedgerResponseCode.LEADER_PENDING_FULL, 'too many pending appends'));
    if (this.store.isDiskFull) return Promise.reject(new DLedgerError(DLedgerResponseCode.DISK_FULL, 'disk full'));
    prepare?.(body);
    const { entry, written } = this.store.appendAsLeader(body, this.currTerm, this.#appendHook);
    const index = entry.index;
    const deadline = this.#now() + this.config.maxWaitAckTimeMs;
    const p = new Promise<{ index: number; result: unknown }>((resolve, reject) => {
      this.#pending.set(index, { resolve, reject, deadline });
    });
    // The pushers send only what the leader wrote itself (Java pushes what its store holds): the end of this write,
    // not the append, is what wakes them.
    written.then(() => {
      if (index > this.#selfWritten) this.#selfWritten = index;
      this.#updateCommitIndex();
      this.#wakePushers();
    }, (err) => {
      this.log.error({ err, index }, 'dledger append write failed');
      this.#settle(index, new DLedgerError(DLedgerResponseCode.DISK_ERROR, String(err)));
    });
    return p;
  }

  #settle(index: number, err: Error | null, result?: unknown): void {
    const p = this.#pending.get(index);
    if (!p) return;
    this.#pending.delete(index);
    if (err) p.reject(err);
    else p.resolve({ index, result });
  }

  /**
   * Fails the appends whose quorum did not come in maxWaitAckTimeMs (Java's TimeoutFuture, checked by
   * QuorumAckChecker): one check every maintain turn instead of a timer per append. Appends are pending in index
   * order, so the first one not yet due ends the scan.
   */
  #expirePending(now: number): void {
    for (const [index, p] of this.#pending) {
      if (p.deadline > now) break;
      this.#pending.delete(index);
      p.reject(new DLedgerError(DLedgerResponseCode.WAIT_QUORUM_ACK_TIMEOUT, `entry ${index} not acknowledged by a quorum in ${this.config.maxWaitAckTimeMs} ms`));
    }
  }

  #failPending(code: number, why: string): void {
    for (const index of [...this.#pending.keys()]) this.#settle(index, new DLedgerError(code, why));
  }

  #updateCommitIndex(): void {
    if (this.role !== 'LEADER') return;
    const marks = [this.#selfWritten, ...[...this.#peerStates.values()].map((s) => s.matchIndex)].sort((a, b) => b - a);
    const quorumIndex = marks[Math.floor(this.peers.size / 2)];
    if (quorumIndex > this.store.committedIndex) {
      this.store.updateCommittedIndex(quorumIndex);
      void this.#applyCommitted();
      this.#wakePushers();
    }
  }

  async #appliedUpTo(index: number): Promise<void> {
    while (!this.#stopped && this.appliedIndex < index) {
      void this.#applyCommitted();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async #applyCommitted(): Promise<void> {
    if (this.#applying) return;
    this.#applying = true;
    try {
      while (!this.#stopped && this.appliedIndex < this.store.committedIndex) {
        // After a rebuild at the leader's first entry, what lay before it is gone (see handlePush TRUNCATE).
        if (this.appliedIndex < this.store.ledgerBeginIndex - 1) this.appliedIndex = this.store.ledgerBeginIndex - 1;
        const index = this.appliedIndex + 1;
        const entry = this.store.cached(index) ?? await this.store.get(index);
        let result: unknown;
        try {
          result = this.#stateMachine ? await this.#stateMachine.apply(entry) : undefined;
        } catch (err) {
          this.log.error({ err, index }, 'state machine apply failed; retrying');
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        this.appliedIndex = index;
        this.#settle(index, null, result);
      }
    } catch (err) {
      this.log.error({ err }, 'apply loop failed');
    } finally {
      this.#applying = false;
    }
    if (!this.#stopped && this.appliedIndex < this.store.committedIndex) setTimeout(() => void this.#applyCommitted(), 50).unref();
  }

  // ---- entry pusher (leader side, one dispatcher per follower) ----

  /** Per follower: what the pusher sent, and what woke it (see {@link DLedgerServer.pusherStats}). */
  pusherStats(): Map<string, PusherStats> {
    const out = new Map<string, PusherStats>();
    for (const [id, st] of this.#peerStates) out.set(id, { ...st.stats, matchIndex: st.matchIndex });
    return out;
  }

  #pusherAlive(st: PeerState): boolean {
    return !this.#stopped && this.role === 'LEADER' && this.currTerm === st.term && this.#peerStates.get(st.id) === st;
  }

  #wakePushers(): void {
    for (const st of this.#peerStates.values()) this.#wakePusher(st, false);
  }

  /**
   * Runs a turn of the follower's dispatcher now, or once more right after the running turn: a wake that comes
   * while a turn runs is kept, never lost. Woken by the leader's own write of an entry, an answered push, the
   * commit index moving, and by its timer only for a retry after a failure and the idle COMMIT once a second.
   */
  #wakePusher(st: PeerState, byTimer: boolean): void {
    if (!this.#pusherAlive(st)) return;
    if (byTimer) st.stats.timerTurns++;
    if (st.busy) {
      st.again = true;
      return;
    }
    st.busy = true;
    st.running = this.#runPusher(st, byTimer);
  }

  async #runPusher(st: PeerState, byTimer: boolean): Promise<void> {
    try {
      do {
        st.again = false;
        await this.#pusherTurn(st, byTimer);
        byTimer = false;
      } while (st.again && this.#pusherAlive(st));
    } catch (err) {
      this.log.warn({ err, peerId: st.id }, 'push failed');
      if (this.#pusherAlive(st)) this.#toCompare(st, 100);
    } finally {
      st.busy = false;
    }
  }

  /** Wakes the dispatcher after `ms` (a pending earlier timer stays). */
  #pusherTimer(st: PeerState, ms: number): void {
    const at = this.#now() + ms;
    if (st.timer && st.timerAt <= at) return;
    if (st.timer) clearTimeout(st.timer);
    st.timerAt = at;
    st.timer = setTimeout(() => {
      st.timer = null;
      this.#wakePusher(st, true);
    }, Math.max(0, ms));
    st.timer.unref();
  }

  #stopPushers(): void {
    for (const st of this.#peerStates.values()) {
      if (st.timer) clearTimeout(st.timer);
      st.timer = null;
    }
  }

  /** Back to COMPARE (answers to pushes sent before are ignored), not before `pauseMs`. */
  #toCompare(st: PeerState, pauseMs: number): void {
    st.epoch++;
    st.mode = 'COMPARE';
    st.compareIndex = -1;
    st.nextIndex = st.matchIndex + 1;
    st.notBefore = this.#now() + pauseMs;
  }

  async #pusherTurn(st: PeerState, byTimer: boolean): Promise<void> {
    if (!this.#pusherAlive(st)) return;
    const now = this.#now();
    if (now < st.notBefore) {
      this.#pusherTimer(st, st.notBefore - now);
      return;
    }
    if (st.mode === 'COMPARE') {
      // Answers to the pushes of the APPEND mode left are awaited first (the last one wakes us).
      if (st.inflight > 0) return;
      await this.#doCompare(st);
      if ((st.mode as PeerState['mode']) !== 'APPEND' || !this.#pusherAlive(st)) return;
    }
    await this.#pushEntries(st, byTimer);
  }

  /**
   * Java's EntryDispatcher.doAppend: entries the leader wrote go out without waiting for earlier answers, up to
   * maxInflightPushNum pushes and maxPendingRequestsNum unanswered entries per follower, and what piled up behind
   * them goes in one batch push (batchEntry, up to maxBatchPushSize bytes). A push leaves at once when the follower
   * has none to answer; beside one in flight, only once PIPELINE_MIN_ENTRIES piled up (each push costs its JSON,
   * a write and a read on both sides: a follower that keeps up gets few large pushes, not many of one entry each).
   * With nothing to send and nothing in flight, a COMMIT push brings the follower's commit index up to ours: at
   * once when it moved, else once a second.
   */
  async #pushEntries(st: PeerState, byTimer: boolean): Promise<void> {
    const epoch = st.epoch;
    const c = this.config;
    while (st.inflight < c.maxInflightPushNum && st.nextIndex <= this.#selfWritten && st.nextIndex - st.matchIndex - 1 < c.maxPendingRequestsNum) {
      if (st.inflight > 0 && c.enableBatchPush && this.#selfWritten - st.nextIndex + 1 < PIPELINE_MIN_ENTRIES) break;
      const end = Math.min(this.#selfWritten, st.matchIndex + c.maxPendingRequestsNum);
      const batch: DLedgerEntry[] = [];
      let bytes = 0;
      for (let i = st.nextIndex; i <= end; i++) {
        const e = this.store.cached(i) ?? await this.store.get(i);
        if (batch.length > 0 && bytes + e.size > c.maxBatchPushSize) break;
        batch.push(e);
        bytes += e.size;
        if (!c.enableBatchPush) break;
      }
      if (!this.#pusherAlive(st) || st.epoch !== epoch || batch.length === 0 || batch[0].index !== st.nextIndex) return;
      this.#sendPush(st, 'APPEND', batch);
      if (byTimer) st.stats.entriesPushedByTimer += batch.length;
    }
    if (st.inflight > 0 || st.nextIndex <= this.#selfWritten) return;
    const since = this.#now() - st.lastPushTime;
    if (st.lastCommitSent !== this.store.committedIndex || since >= 1000) this.#sendPush(st, 'COMMIT', []);
    else this.#pusherTimer(st, 1000 - since);
  }

  #sendPush(st: PeerState, type: 'APPEND' | 'COMMIT', batch: DLedgerEntry[]): void {
    const epoch = st.epoch;
    const req = type === 'COMMIT' || batch.length === 1
      ? this.#pushRequest(st.id, st.term, type, batch[0] ?? null)
      : this.#pushRequest(st.id, st.term, 'APPEND', null, batch);
    st.inflight++;
    if (st.inflight > st.stats.maxInflight) st.stats.maxInflight = st.inflight;
    st.lastPushTime = this.#now();
    st.lastCommitSent = this.store.committedIndex;
    if (type === 'APPEND') {
      st.nextIndex = batch[batch.length - 1].index + 1;
      st.stats.appendPushes++;
      st.stats.entriesPushed += batch.length;
    } else st.stats.commitPushes++;
    void this.#invoke(st.id, DLedgerRequestCode.PUSH, req, decodePushEntryResponse, this.config.maxPushTimeOutMs * 3).then((r) => {
      st.inflight--;
      if (!this.#pusherAlive(st)) return;
      if (st.epoch === epoch && this.#checkResponseTerm(r, st.term)) {
        if (r.code === DLedgerResponseCode.SUCCESS) {
          if (type === 'APPEND') {
            st.matchIndex = Math.max(st.matchIndex, batch[batch.length - 1].index);
            this.#updateCommitIndex();
          }
        } else {
          // Java turns to COMPARE on INCONSISTENT_STATE and resends other failures after maxPushTimeOutMs; here
          // COMPARE finds where the follower ends either way, at once or after a pause for the network.
          this.log.debug({ peerId: st.id, code: r.code, type }, 'push refused; comparing');
          this.#toCompare(st, r.code === DLedgerResponseCode.INCONSISTENT_STATE ? 0 : 100);
        }
      }
      this.#wakePusher(st, false);
    });
  }

  #pushRequest(peerId: string, term: number, type: PushEntryRequest['type'], entry: DLedgerEntry | null, batch: DLedgerEntry[] = []): PushEntryRequest & Record<string, unknown> {
    return { ...this.#base(peerId), leaderId: this.selfId, term, commitIndex: this.store.committedIndex, type, entry, batchEntry: batch };
  }

  #checkResponseTerm(r: PushEntryResponse, term: number): boolean {
    if (r.code === DLedgerResponseCode.EXPIRED_TERM || r.term > term) {
      if (r.term > this.currTerm) this.#changeRoleToCandidate(r.term);
      return false;
    }
    return true;
  }

  /** Java's EntryDispatcher.doCompare / doTruncate: finds the last entry the follower shares with us. */
  async #doCompare(st: PeerState): Promise<void> {
    const { id: peerId, term } = st;
    const begin = this.store.ledgerBeginIndex;
    const end = this.store.ledgerEndIndex;
    if (end === -1) {
      // Nothing to compare: the follower truncates everything on our first entry.
      st.mode = 'APPEND';
      st.nextIndex = 0;
      st.matchIndex = -1;
      return;
    }
    let compareIndex = st.compareIndex === -1 || st.compareIndex > end ? end : st.compareIndex;
    let truncateIndex = -1;
    while (truncateIndex === -1) {
      if (compareIndex < begin) {
        truncateIndex = begin;
        break;
      }
      const entry = await this.store.get(compareIndex);
      const r = await this.#invoke(peerId, DLedgerRequestCode.PUSH, this.#pushRequest(peerId, term, 'COMPARE', entry), decodePushEntryResponse, this.config.maxPushTimeOutMs * 3);
      if (!this.#pusherAlive(st) || !this.#checkResponseTerm(r, term)) return;
      if (r.code === DLedgerResponseCode.SUCCESS) {
        if (compareIndex === r.endIndex) {
          st.mode = 'APPEND';
          st.matchIndex = compareIndex;
          st.nextIndex = compareIndex + 1;
          st.compareIndex = -1;
          this.#updateCommitIndex();
          return;
        }
        truncateIndex = compareIndex;
      } else if (r.code === DLedgerResponseCode.INCONSISTENT_STATE) {
        if (r.endIndex < begin || r.beginIndex > end) truncateIndex = begin;
        else if (compareIndex < r.beginIndex) truncateIndex = begin;
        else if (compareIndex > r.endIndex) compareIndex = r.endIndex;
        else compareIndex--;
      } else {
        st.notBefore = this.#now() + Math.min(200, this.config.heartBeatTimeIntervalMs);
        this.#pusherTimer(st, st.notBefore - this.#now());
        return;
      }
    }
    const entry = await this.store.get(truncateIndex);
    const r = await this.#invoke(peerId, DLedgerRequestCode.PUSH, this.#pushRequest(peerId, term, 'TRUNCATE', entry), decodePushEntryResponse, this.config.maxPushTimeOutMs * 3);
    if (!this.#pusherAlive(st) || !this.#checkResponseTerm(r, term)) return;
    if (r.code === DLedgerResponseCode.SUCCESS) {
      st.mode = 'APPEND';
      st.matchIndex = truncateIndex;
      st.nextIndex = truncateIndex + 1;
      st.compareIndex = -1;
      this.#updateCommitIndex();
    } else {
      st.notBefore = this.#now() + 100;
      this.#pusherTimer(st, 100);
    }
  }

  // ---- push handling (follower side) ----

  /**
   * Pushes are admitted one at a time in arrival order (the leader pipelines them over one connection); an APPEND
   * is admitted once its entries are in the log's bookkeeping, so the next push is checked while its write runs.
   */
  #serialPush(req: PushEntryRequest): Promise<PushEntryResponse> {
    const admitted = this.#pushChain.then(() => this.#admitPush(req));
    this.#pushChain = admitted.catch(() => undefined);
    return admitted.then((a) => a.done);
  }

  async handlePush(req: PushEntryRequest): Promise<PushEntryResponse> {
    return (await this.#admitPush(req)).done;
  }

  async #admitPush(req: PushEntryRequest): Promise<{ done: Promise<PushEntryResponse> }> {
    const res = (code: number, index: number | null = null): PushEntryResponse => ({
      group: req.group, remoteId: req.localId, localId: this.selfId, code, leaderId: this.leaderId, term: this.currTerm, index,
      beginIndex: this.store.ledgerBeginIndex, endIndex: this.store.ledgerEndIndex, count: 0,
    });
    const now = (code: number, index: number | null = null) => ({ done: Promise.resolve(res(code, index)) });
    if (this.#stopped) return now(DLedgerResponseCode.INTERNAL_ERROR);
    if (req.term < this.currTerm) return now(DLedgerResponseCode.EXPIRED_TERM);
    if (req.term > this.currTerm) {
      this.#changeRoleToCandidate(req.term);
      this.#needIncreaseTermImmediately = true;
      return now(DLedgerResponseCode.TERM_NOT_READY);
    }
    if (this.role === 'CANDIDATE' && this.leaderId === null && req.leaderId && req.leaderId !== this.selfId) this.#changeRoleToFollower(req.term, req.leaderId);
    if (this.role !== 'FOLLOWER') return now(DLedgerResponseCode.NOT_FOLLOWER);
    if (req.leaderId !== this.leaderId) return now(DLedgerResponseCode.INCONSISTENT_LEADER);
    this.#lastLeaderHeartBeatTime = this.#now();
    const commit = () => {
      const c = Math.min(req.commitIndex, this.store.ledgerEndIndex);
      if (c > this.store.committedIndex) {
        this.store.updateCommittedIndex(c);
        void this.#applyCommitted();
      }
    };
    switch (req.type) {
      case 'APPEND': {
        const entries = req.batchEntry.length ? req.batchEntry : req.entry ? [req.entry] : [];
        const writes: Promise<void>[] = [];
        for (const e of entries) {
          if (e.index <= this.store.ledgerEndIndex) {
            if (this.store.termAt(e.index) === e.term) continue;
            return now(DLedgerResponseCode.INCONSISTENT_STATE);
          }
          if (e.index !== this.store.ledgerEndIndex + 1) return now(DLedgerResponseCode.INCONSISTENT_STATE);
          try {
            writes.push(this.store.appendAsFollower(e));
          } catch (err) {
            this.log.warn({ err, index: e.index }, 'append as follower failed');
            return now(DLedgerResponseCode.INCONSISTENT_STATE);
          }
        }
        const last = entries.length ? entries[entries.length - 1].index : null;
        const done = Promise.all(writes).then(() => {
          if (last !== null && last > this.#selfWritten) this.#selfWritten = last;
          commit();
          return { ...res(DLedgerResponseCode.SUCCESS, last), count: entries.length };
        }, (err: unknown) => {
          this.log.warn({ err, index: entries[0]?.index }, 'append as follower failed');
          return res(DLedgerResponseCode.INCONSISTENT_STATE);
        });
        return { done };
      }
      case 'COMMIT':
        commit();
        return now(DLedgerResponseCode.SUCCESS);
      case 'COMPARE': {
        const e = req.entry;
        if (!e) return now(DLedgerResponseCode.UNEXPECTED_ARGUMENT);
        const s = this.store.slot(e.index);
        const same = !!s && s.term === e.term && s.pos === e.pos && s.size === e.size;
        return now(same ? DLedgerResponseCode.SUCCESS : DLedgerResponseCode.INCONSISTENT_STATE, e.index);
      }
      case 'TRUNCATE': {
        const e = req.entry;
        if (!e) return now(DLedgerResponseCode.UNEXPECTED_ARGUMENT);
        // What this peer knows committed is applied before its log changes under the applier (a rebuild at the
        // leader's first entry drops every entry; a restarted peer may still be applying its own).
        await this.#appliedUpTo(Math.min(this.store.committedIndex, this.store.ledgerEndIndex));
        if (this.#stopped) return now(DLedgerResponseCode.INCONSISTENT_STATE);
        try {
          await this.store.truncate(e);
        } catch (err) {
          this.log.error({ err, index: e.index }, 'truncate failed');
          return now(DLedgerResponseCode.INCONSISTENT_STATE);
        }
        this.#selfWritten = this.store.ledgerEndIndex;
        if (this.appliedIndex < this.store.ledgerBeginIndex - 1) {
          // The log was rebuilt at the leader's first entry: what lay before it is gone and is not applied here.
          this.log.warn({ appliedIndex: this.appliedIndex, ledgerBeginIndex: this.store.ledgerBeginIndex }, 'entries before the leader\'s first were deleted: not applied here');
          this.appliedIndex = this.store.ledgerBeginIndex - 1;
        }
        this.log.info({ index: e.index, ledgerEndIndex: this.store.ledgerEndIndex }, 'truncated to the leader');
        commit();
        return now(DLedgerResponseCode.SUCCESS, e.index);
      }
      default:
        return now(DLedgerResponseCode.UNEXPECTED_ARGUMENT);
    }
  }
}
