/**
 * Controller mode (RocketMQ 5.x automatic failover): a controller, a name server and a broker set of 2 replicas with
 * allAckInSyncStateSet, started in process; a producer sends, the master is stopped, the controller elects the other
 * replica and the producer's sends succeed again. Always runs on its own embedded set (it stops a broker).
 * Run: node dist/examples/controller-failover.js
 */
import { DefaultMQProducer, createMessage } from '../lib/index';
import { startCluster } from '../lib/server';
import { RUN_ID, run } from './support';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const cluster = await startCluster({ controller: true, replicas: 2 });
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleControllerProducer', namesrvAddr: cluster.namesrvAddr, instanceName: `ctl-${RUN_ID}`, pollNameServerInterval: 200 });
  try {
    const master = cluster.master()!;
    console.log(`controller at ${cluster.controllerAddr}, master ${master.brokerAddr} (epoch ${master.replicasManager!.masterEpoch}),`
      + ` SyncStateSet ${JSON.stringify(master.replicasManager!.syncStateSet.syncStateSet)}`);
    await producer.start();
    /** Sends until the broker set acknowledges (the first send creates the topic; during a failover the route moves). */
    const send = async (body: string): Promise<void> => {
      for (;;) {
        try {
          const r = await producer.send(createMessage('ControllerExampleTopic', body));
          if (r.sendStatus === 'SEND_OK') {
            console.log(`${body}: ${r.sendStatus} by ${r.messageQueue.brokerName} queue ${r.messageQueue.queueId}`);
            return;
          }
        } catch { /* the master is gone: retry once the route names the new one */ }
        await sleep(100);
      }
    };
    for (let i = 0; i < 3; i++) await send(`before-${i}`);
    const t0 = Date.now();
    await cluster.stopBroker(cluster.brokers.indexOf(master));
    console.log(`master ${master.brokerAddr} stopped`);
    await send('after-0');
    const next = cluster.master()!;
    console.log(`new master ${next.brokerAddr} (epoch ${next.replicasManager!.masterEpoch}); first SEND_OK ${Date.now() - t0} ms after the stop`);
    for (let i = 1; i < 3; i++) await send(`after-${i}`);
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
}

run(main);
