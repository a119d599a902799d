/**
 * What the DLedger broker-group tests ask of a group started with startCluster({ dledger: N }) (not a test file).
 */
import type { Cluster } from '../../../lib/server';
import type { BrokerController } from '../../../lib/broker/broker-controller';
import { waitFor } from '../../helpers/wait-for';

/** The running broker that leads the DLedger group and has taken up the master role, if any. */
export function dledgerMaster(c: Cluster): BrokerController | undefined {
  return c.brokers.find((b) => b.isRunning && b.dledgerCommitLog?.server.isLeader && b.messageStoreConfig.brokerRole !== 'SLAVE');
}

/** Every broker has committed at least `committed` and applied all it committed. */
export function allApplied(brokers: readonly BrokerController[], committed: number): boolean {
  return brokers.every((b) => {
    const s = b.dledgerCommitLog!.server;
    return s.committedIndex >= committed && s.appliedIndex === s.committedIndex;
  });
}

/** Waits for a master, then for every peer to have applied what it committed. */
export async function settleDLedgerGroup(c: Cluster, timeoutMillis = 30_000): Promise<BrokerController> {
  await waitFor(() => !!dledgerMaster(c), timeoutMillis, 'a master');
  const leader = dledgerMaster(c)!;
  const committed = leader.dledgerCommitLog!.server.committedIndex;
  await waitFor(() => allApplied(c.brokers, committed), timeoutMillis, 'every peer applied what the leader committed');
  return leader;
}
