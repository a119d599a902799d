/**
 * The name server survives bad input: every code of its processor gets well-formed answers to garbage headers
 * and bodies (normal and oneway), connections keep working, nothing escapes as an unhandled rejection or uncaught
 * exception, malformed frames close only their own connection, and the routes registered before the sweep are
 * still served after it. Seeded: replay with ROBUSTNESS_SEED=<seed>.
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName } from '../../helpers/cluster';
import { sendHeader, sendRequest } from '../broker/broker-helpers';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { GetRouteInfoRequestHeader } from '../../../protocol/header/get-route-info-request-header';
import { decodeTopicRouteData } from '../../../protocol/body/topic-route-data';
import { NAMESRV_REQUEST_CODES } from '../../../lib/namesrv/processors/default-request-processor';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import {
  ProcessFailureCounter, SweepClients, casesFor, handFrame, randomBytes, rawSocket, seededRandom, sweepCode, sweepSeed, within,
} from './bad-input-helpers';

describe('robustness: the name server survives bad input', function () {
  this.timeout(300000);
  let cluster: Cluster;
  let removeLeftover: () => void;
  let namesrvAddr: string;
  let clients: SweepClients;
  const topic = randomName('ROUTED');
  let routeBefore: unknown;
  const failures = new ProcessFailureCounter();

  async function route(client: RemotingClient): Promise<RemotingCommand> {
    return client.invoke(namesrvAddr, RemotingCommand.createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoRequestHeader.encode({ topic })), 5000);
  }

  // "still answers": after a sweep it may queue behind the sweep's oneway requests; the sweep's own 20 s bound
  async function probe(client: RemotingClient): Promise<string | null> {
    const res = await client.invoke(namesrvAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), 20000);
    return res.code === ResponseCode.SUCCESS ? null : `probe answered ${res.code} ${res.remark}`;
  }

  function summary(res: RemotingCommand): unknown {
    const r = decodeTopicRouteData(res.body!);
    return { queueDatas: r.queueDatas, brokerDatas: r.brokerDatas };
  }

  before(async () => {
    cluster = await startCluster();
    removeLeftover = registerLeftover(() => cluster.stop());
    namesrvAddr = cluster.namesrvAddr;
    clients = new SweepClients();
    const brokerAddr = cluster.brokers[0].brokerAddr;
    const sent = await clients.json.invoke(brokerAddr, sendRequest('V2', sendHeader(topic), Buffer.from('m')), 5000);
    expect(sent.code, sent.remark ?? '').to.equal(ResponseCode.SUCCESS);
    await cluster.brokers[0].registerBrokerAll(true, false, true);
    const res = await route(clients.json);
    expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    routeBefore = summary(res);
    failures.start();
  });

  after(async () => {
    failures.stop();
    await clients?.shutdown();
    removeLeftover?.();
    await cluster?.stop();
  });

  it('answers every name-server request code with garbage headers and bodies, normal and oneway', async () => {
    const seed = sweepSeed('namesrv sweep');
    const rand = seededRandom(seed);
    // Plausible values never name the real cluster, broker or topic: a legitimate UNREGISTER_BROKER or
    // WIPE_WRITE_PERM_OF_BROKER of the real broker would change its routes, as in Java.
    const plausible = ['0', '1', '3', 'true', 'false', randomName('DECOY'), 'DecoyCluster', 'broker-decoy', '127.0.0.1:1', 'ORDER_TOPIC_CONFIG'];
    const oversized = randomBytes(rand, 4 * 1024 * 1024 + 1024);
    const problems: string[] = [];
    for (const code of NAMESRV_REQUEST_CODES) {
      problems.push(...await sweepCode(namesrvAddr, clients, casesFor(code, rand, plausible, oversized), 20000, probe));
    }
    expect(problems, `seed ${seed}:\n${problems.join('\n')}`).to.deep.equal([]);
    expect(failures.events, failures.events.join('\n')).to.deep.equal([]);
  });

  for (const st of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    it(`answers unknown codes with REQUEST_CODE_NOT_SUPPORTED (serialize type ${st})`, async () => {
      for (const code of [-1, 9999, 32767, RequestCode.SEND_MESSAGE, RequestCode.PULL_MESSAGE]) {
        const res = await clients.of(st).invoke(namesrvAddr, RemotingCommand.createRequest(code, { topic: 'x' }, Buffer.from('{')), 5000);
        expect(res.code, `code ${code}`).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
        expect(res.remark).to.contain(`request type ${code} not supported`);
        expect(res.serializeType).to.equal(st);
      }
    });
  }

  it('closes a connection with malformed frames and keeps serving the others', async () => {
    const header = Buffer.from(JSON.stringify({ code: RequestCode.GET_BROKER_CLUSTER_INFO, flag: 0, language: 'JAVA', opaque: 1, serializeTypeCurrentRPC: 'JSON', version: 409 }));
    const bad: [string, Buffer, boolean][] = [
      ['truncated frame then close', handFrame(4 + header.length + 100, 0, header.length, header).subarray(0, 20), false],
      ['header length larger than the frame', handFrame(4 + header.length, 0, header.length + 50, header), true],
      ['negative total length', handFrame(-1, 0, 0, Buffer.alloc(0)), true],
      ['total length above the frame limit', handFrame(16 * 1024 * 1024 + 1, 0, 0, Buffer.alloc(0)), true],
      ['unknown serialize type', handFrame(4 + header.length, 2, header.length, header), true],
      ['JSON header that is not JSON', handFrame(4 + 3, 0, 3, Buffer.from('nul')), true],
      ['binary header cut short', handFrame(4 + 3, 1, 3, Buffer.from([0, 106, 0])), true],
    ];
    for (const [label, bytes, mustClose] of bad) {
      const { socket, closed } = await rawSocket(namesrvAddr);
      socket.write(bytes);
      if (mustClose) {
        expect(await within(closed, 5000), `${label}: the name server closes the connection`).to.equal(true);
      } else {
        await new Promise((r) => setTimeout(r, 50));
        socket.destroy();
        await closed;
      }
      expect(await probe(clients.binary), label).to.equal(null);
    }
  });

  it('still serves the routes registered before the sweep', async () => {
    for (const client of [clients.json, clients.binary]) {
      const res = await route(client);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
      expect(summary(res)).to.deep.equal(routeBefore);
    }
    // the broker still registers, and its connection was never disturbed
    await cluster.brokers[0].registerBrokerAll(true, false, true);
    expect(summary(await route(clients.json))).to.deep.equal(routeBefore);
    expect(failures.events, failures.events.join('\n')).to.deep.equal([]);
  });
});
