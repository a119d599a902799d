/**
 * A scripted name server and brokers on RemotingServers (127.0.0.1, port 0) that answer like Java 4.9.8:
 * GET_ROUTEINFO_BY_TOPIC with a route body of the configured brokers (TOPIC_NOT_EXIST for unknown topics),
 * HEART_BEAT / UNREGISTER_CLIENT with SUCCESS, and sends with whatever the test scripts (SUCCESS by default,
 * with msgId / queueId / queueOffset / MSG_REGION / TRACE_ON as the Java broker writes them).
 */
import { RequestCode } from '../../protocol/code/request-code';
import { ResponseCode } from '../../protocol/code/response-code';
import { encodeTopicRouteData, type TopicRouteData } from '../../protocol/body/topic-route-data';
import { RemotingCommand } from '../../protocol/remoting-command';
import { RemotingServer } from '../../lib/transport';

export interface ScriptedBroker {
  name: string;
  server: RemotingServer;
  addr: string;
  requests: RemotingCommand[];
  /** Answer of the next sends, consumed in order; then SUCCESS. A number is a response code; 'drop' never answers. */
  script: Array<number | 'drop'>;
  queueOffset: number;
}

export interface ScriptedCluster {
  namesrv: RemotingServer;
  namesrvAddr: string;
  namesrvRequests: RemotingCommand[];
  brokers: ScriptedBroker[];
  /** Topics the name server knows (with queue counts); TBW102 is always known. */
  topics: Map<string, number>;
  stop(): Promise<void>;
}

export function routeFor(brokers: ScriptedBroker[], queueNums: number): TopicRouteData {
  return {
    queueDatas: brokers.map((b) => ({ brokerName: b.name, readQueueNums: queueNums, writeQueueNums: queueNums, perm: 6, topicSysFlag: 0 })),
    brokerDatas: brokers.map((b) => ({ cluster: 'DefaultCluster', brokerName: b.name, brokerAddrs: new Map([[0, b.addr]]) })),
    filterServerTable: new Map(),
  };
}

export async function startScriptedCluster(brokerCount: number, topics: Record<string, number> = {}): Promise<ScriptedCluster> {
  const brokers: ScriptedBroker[] = [];
  for (let i = 0; i < brokerCount; i++) {
    const server = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0 });
    const port = await server.listen();
    const broker: ScriptedBroker = { name: `broker-${String.fromCharCode(97 + i)}`, server, addr: `127.0.0.1:${port}`, requests: [], script: [], queueOffset: 0 };
    const onSend = (request: RemotingCommand) => {
      broker.requests.push(request);
      const step = broker.script.shift();
      if (step === 'drop') return null;
      const code = step ?? ResponseCode.SUCCESS;
      if (code !== ResponseCode.SUCCESS && code !== ResponseCode.FLUSH_DISK_TIMEOUT && code !== ResponseCode.FLUSH_SLAVE_TIMEOUT && code !== ResponseCode.SLAVE_NOT_AVAILABLE) {
        return RemotingCommand.createResponse(request, code, `scripted failure ${code}`);
      }
      const offset = broker.queueOffset++;
      return RemotingCommand.createResponse(request, code, null, {
        msgId: `7F00000100002A9F${offset.toString(16).toUpperCase().padStart(16, '0')}`,
        queueId: request.extFields!.e,
        queueOffset: String(offset),
        MSG_REGION: 'DefaultRegion',
        TRACE_ON: 'true',
      });
    };
    server.registerProcessor(RequestCode.SEND_MESSAGE_V2, onSend);
    server.registerProcessor(RequestCode.SEND_BATCH_MESSAGE, onSend);
    server.registerProcessor(RequestCode.HEART_BEAT, (r) => { broker.requests.push(r); return RemotingCommand.createResponse(r, ResponseCode.SUCCESS); });
    server.registerProcessor(RequestCode.UNREGISTER_CLIENT, (r) => { broker.requests.push(r); return RemotingCommand.createResponse(r, ResponseCode.SUCCESS); });
    brokers.push(broker);
  }
  const topicTable = new Map<string, number>(Object.entries(topics));
  const namesrv = new RemotingServer({ bindAddress: '127.0.0.1', listenPort: 0 });
  const namesrvRequests: RemotingCommand[] = [];
  namesrv.registerProcessor(RequestCode.GET_ROUTEINFO_BY_TOPIC, (r) => {
    namesrvRequests.push(r);
    const topic = r.extFields!.topic;
    const nums = topic === 'TBW102' ? 8 : topicTable.get(topic);
    if (nums === undefined) {
      return RemotingCommand.createResponse(r, ResponseCode.TOPIC_NOT_EXIST, `No topic route info in name server for the topic: ${topic}`);
    }
    return RemotingCommand.createResponse(r, ResponseCode.SUCCESS, null, null, encodeTopicRouteData(routeFor(brokers, nums), { standardJson: true }));
  });
  const nsPort = await namesrv.listen();
  return {
    namesrv,
    namesrvAddr: `127.0.0.1:${nsPort}`,
    namesrvRequests,
    brokers,
    topics: topicTable,
    async stop() {
      await Promise.all([namesrv.shutdown(), ...brokers.map((b) => b.server.shutdown())]);
    },
  };
}

/** The send requests a broker received. */
export function sends(b: ScriptedBroker): RemotingCommand[] {
  return b.requests.filter((r) => r.code === RequestCode.SEND_MESSAGE_V2 || r.code === RequestCode.SEND_BATCH_MESSAGE);
}
