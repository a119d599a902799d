/**
 * What the controller-mode tests with child-process brokers share: a name server and one controller of ours with
 * short timings in this process, and a sender that keeps the bodies of the acknowledged sends.
 */
import path from 'node:path';
import { ControllerManager } from '../../lib/controller';
import { freePort } from '../../lib/cluster';
import { NamesrvController } from '../../lib/namesrv/namesrv-controller';
import type { DefaultMQProducer } from '../../lib/index';
import { SendStatus } from '../../lib/client/send-result';
import { createMessage } from '../../protocol/message/message';
import { waitFor } from './wait-for';

/** A name server and a leading one-node controller (200 ms heartbeats, 500 ms scans), their files under `dir`. */
export async function startFastControllerAndNamesrv(dir: string): Promise<{ namesrv: NamesrvController; cm: ControllerManager }> {
  const namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
  await namesrv.start();
  const port = await freePort();
  const cm = new ControllerManager({
    controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'controller'),
    configStorePath: path.join(dir, 'controller.properties'), mappedFileSize: 4 * 1024 * 1024, controllerDLegerHeartBeatTimeIntervalMs: 200,
    controllerDLegerMinVoteIntervalMs: 20, controllerDLegerMaxVoteIntervalMs: 60, scanNotActiveBrokerInterval: 500, scanInactiveMasterInterval: 500,
  });
  await cm.start();
  await waitFor(() => cm.isLeaderState, 10_000, 'the controller to lead');
  return { namesrv, cm };
}

/** `send(body)` sends one message to `topic` and answers its status (null when it threw); `acked` the bodies answered SEND_OK. */
export function ackedSender(producer: DefaultMQProducer, topic: string): { acked: string[]; send: (body: string) => Promise<SendStatus | null> } {
  const acked: string[] = [];
  const send = async (body: string): Promise<SendStatus | null> => {
    try {
      const r = await producer.send(createMessage(topic, body));
      if (r.sendStatus === SendStatus.SEND_OK) acked.push(body);
      return r.sendStatus;
    } catch {
      return null;
    }
  };
  return { acked, send };
}
