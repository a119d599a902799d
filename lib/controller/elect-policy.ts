/**
 * Java's DefaultElectPolicy: who becomes master of a broker set.
 *
 * First among the SyncStateSet, then (only with enableElectUncleanMaster) among every replica, keeping the alive
 * ones: the old master if it is still alive and no other is designated; the designated broker if alive, else
 * nobody; otherwise the best by (epoch desc, maxOffset desc, electionPriority asc) from the heartbeats; a replica
 * without heartbeat information last.
 *
 * @see org.apache.rocketmq.controller.elect.impl.DefaultElectPolicy
 * @see org.apache.rocketmq.controller.elect.ElectPolicy
 */

/** What the heartbeat manager knows of a replica (Java BrokerLiveInfo, as the policy sees it). */
export interface ElectCandidateInfo {
  brokerId: number;
  epoch: number;
  maxOffset: number;
  electionPriority: number;
}

/** (clusterName, brokerName, brokerId) → alive? (Java BrokerValidPredicate) */
export type BrokerValidPredicate = (clusterName: string, brokerName: string, brokerId: number) => boolean;
/** (clusterName, brokerName, brokerId) → live info (Java BrokerLiveInfoGetter) */
export type BrokerLiveInfoGetter = (clusterName: string, brokerName: string, brokerId: number) => ElectCandidateInfo | null;

export interface ElectPolicy {
  /**
   * @param syncStateBrokers the SyncStateSet (may be null)
   * @param allReplicaBrokers every replica, or null when unclean elections are off
   * @param oldMaster the current master id, or null
   * @param preferBrokerId the broker to elect (designated), or null
   * @returns the new master id, or null when nobody qualifies
   */
  elect(clusterName: string, brokerName: string, syncStateBrokers: ReadonlySet<number> | null, allReplicaBrokers: ReadonlySet<number> | null,
    oldMaster: number | null, preferBrokerId: number | null): number | null;
}

/** Java's comparator: epoch descending, then maxOffset descending, then electionPriority ascending. */
export function compareCandidates(a: ElectCandidateInfo, b: ElectCandidateInfo): number {
  if (a.epoch !== b.epoch) return b.epoch - a.epoch;
  if (a.maxOffset !== b.maxOffset) return b.maxOffset - a.maxOffset;
  return a.electionPriority - b.electionPriority;
}

export class DefaultElectPolicy implements ElectPolicy {
  constructor(readonly validPredicate: BrokerValidPredicate | null = null, readonly brokerLiveInfoGetter: BrokerLiveInfoGetter | null = null) {}

  elect(clusterName: string, brokerName: string, syncStateBrokers: ReadonlySet<number> | null, allReplicaBrokers: ReadonlySet<number> | null,
    oldMaster: number | null, preferBrokerId: number | null): number | null {
    let newMaster: number | null = null;
    if (syncStateBrokers) newMaster = this.#tryElect(clusterName, brokerName, syncStateBrokers, oldMaster, preferBrokerId);
    if (newMaster !== null) return newMaster;
    if (allReplicaBrokers) newMaster = this.#tryElect(clusterName, brokerName, allReplicaBrokers, oldMaster, preferBrokerId);
    return newMaster;
  }

  #tryElect(clusterName: string, brokerName: string, brokers: ReadonlySet<number>, oldMaster: number | null, preferBrokerId: number | null): number | null {
    let alive = [...brokers].sort((a, b) => a - b);
    const valid = this.validPredicate;
    if (valid) alive = alive.filter((id) => valid(clusterName, brokerName, id));
    if (alive.length === 0) return null;
    if (oldMaster !== null && alive.includes(oldMaster) && (preferBrokerId === null || preferBrokerId === oldMaster)) return oldMaster;
    if (preferBrokerId !== null) return alive.includes(preferBrokerId) ? preferBrokerId : null;
    const getter = this.brokerLiveInfoGetter;
    if (getter) {
      const infos = alive.map((id) => getter(clusterName, brokerName, id)).filter((x): x is ElectCandidateInfo => x !== null);
      if (infos.length > 0) return infos.sort(compareCandidates)[0].brokerId;
    }
    return alive[0];
  }
}
