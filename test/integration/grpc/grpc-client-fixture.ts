/**
 * What the tests with rocketmq-client-nodejs share (not a test file): a silent logger for the client, and an
 * in-process cluster with the gRPC endpoint for one describe block, whose clients are shut down after each test.
 */
import { Producer, SimpleConsumer } from 'rocketmq-client-nodejs';
import type { GrpcMessagingApplication } from '../../../lib/grpc';
import { startCluster, type Cluster, type StartClusterOptions } from '../../../lib/server';
import { clientLogger } from '../../helpers/grpc-client-nodejs';
import { registerLeftover } from '../../helpers/root-hooks';

export { clientLogger };

export interface GrpcClusterFixture {
  /** Set in the describe block's before hook. */
  cluster: Cluster;
  /** `127.0.0.1:<gRPC port>`, the clients' endpoints. */
  endpoints: string;
  /** The broker's gRPC endpoint. */
  app: GrpcMessagingApplication;
  /** Clients to shut down after the test (last started first). */
  readonly clients: { shutdown(): Promise<void> }[];
  /** A started Producer for `topic`, shut down after the test. */
  producer(topic: string): Promise<Producer>;
  /** A started SimpleConsumer of `group` on `topic` (long polling 5 s), shut down after the test. */
  simpleConsumer(topic: string, group: string, filter?: string): Promise<SimpleConsumer>;
  /** Messages of `group` popped and not acked, over the topic's first `queues` queues and its pop retry topic's. */
  inflight(topic: string, group: string, queues?: number): number;
}

/** Registers the hooks of the describe block it is called in: a cluster with the endpoint, started once. */
export function useGrpcCluster(options: StartClusterOptions = {}): GrpcClusterFixture {
  const f = { clients: [] } as unknown as GrpcClusterFixture;
  f.producer = async (topic) => {
    const p = new Producer({ endpoints: f.endpoints, namespace: '', topics: [topic], logger: clientLogger });
    await p.startup();
    f.clients.push(p);
    return p;
  };
  f.simpleConsumer = async (topic, group, filter = '*') => {
    const c = new SimpleConsumer({
      endpoints: f.endpoints, namespace: '', consumerGroup: group, subscriptions: new Map([[topic, filter]]), awaitDuration: 5000, logger: clientLogger,
    });
    await c.startup();
    f.clients.push(c);
    return c;
  };
  f.inflight = (topic, group, queues = 1) => {
    const cks = f.cluster.brokers[0].pop.checkPoints;
    let n = 0;
    for (let q = 0; q < queues; q++) n += cks.inflight(topic, group, q) + cks.inflight(`%RETRY%${group}_${topic}`, group, q);
    return n;
  };
  let remove: (() => void) | null = null;
  before(async () => {
    f.cluster = await startCluster({ ...options, grpc: true });
    remove = registerLeftover(() => f.cluster.stop());
    f.app = f.cluster.brokers[0].grpcEndpoint as unknown as GrpcMessagingApplication;
    if (!(f.app.port > 0)) throw new Error('the gRPC endpoint has no port');
    f.endpoints = `127.0.0.1:${f.app.port}`;
  });
  afterEach(async () => {
    for (const c of f.clients.splice(0).reverse()) await c.shutdown().catch(() => undefined);
  });
  after(async () => {
    remove?.();
    await f.cluster?.stop();
  });
  return f;
}
