/**
 * The broker survives bad input: for every request code of its processor table, requests with no extFields,
 * garbage values, garbage and oversized bodies (normal and oneway) each get a well-formed answer (a failure code
 * with a remark, or SUCCESS where Java would succeed), the connections keep working, no unhandled rejection or
 * uncaught exception happens, and messages acknowledged before the sweep are all still readable after it.
 * Plus unknown codes, and malformed frames on raw sockets. Seeded: replay with ROBUSTNESS_SEED=<seed>.
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName, waitFor } from '../../helpers/cluster';
import { pullRequest, sendHeader, sendRequest } from '../broker/broker-helpers';
import { RemotingCommand, SerializeType } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { SendMessageResponseHeader } from '../../../protocol/header/send-message-response-header';
import { PullMessageResponseHeader } from '../../../protocol/header/pull-message-response-header';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import {
  ProcessFailureCounter, SweepClients, casesFor, handFrame, randomBytes, rawSocket, seededRandom, sweepCode, sweepSeed, within,
} from './bad-input-helpers';

describe('robustness: the broker survives bad input', function () {
  this.timeout(300000);
  let cluster: Cluster;
  let removeLeftover: () => void;
  let brokerAddr: string;
  let clients: SweepClients;
  const topic = randomName('ROBUST');
  const acked: { queueId: number; queueOffset: number; body: string }[] = [];
  const failures = new ProcessFailureCounter();

  // "still answers": after a sweep it may queue behind the sweep's oneway requests; the sweep's own 20 s bound
  async function probe(client: RemotingClient): Promise<string | null> {
    const res = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_RUNTIME_INFO), 20000);
    return res.code === ResponseCode.SUCCESS ? null : `probe answered ${res.code} ${res.remark}`;
  }

  async function pullAll(queueId: number, from: number, count: number): Promise<string[]> {
    const res = await clients.json.invoke(brokerAddr, pullRequest(randomName('G'), topic, queueId, from, { maxMsgNums: count }), 5000);
    expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    return decodeMessages(res.body!).map((m) => m.body.toString());
  }

  before(async () => {
    cluster = await startCluster();
    removeLeftover = registerLeftover(() => cluster.stop());
    brokerAddr = cluster.brokers[0].brokerAddr;
    clients = new SweepClients();
    for (let i = 0; i < 20; i++) {
      const body = `acked-${i}`;
      const res = await clients.json.invoke(brokerAddr, sendRequest(i % 2 ? 'V1' : 'V2', sendHeader(topic, {}, i % 4), Buffer.from(body)), 5000);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
      const h = SendMessageResponseHeader.decode(res.extFields);
      acked.push({ queueId: h.queueId, queueOffset: h.queueOffset, body });
    }
    failures.start();
  });

  after(async () => {
    failures.stop();
    await clients?.shutdown();
    removeLeftover?.();
    await cluster?.stop();
  });

  it('answers every registered request code with garbage headers and bodies, normal and oneway', async () => {
    const seed = sweepSeed('broker sweep');
    const rand = seededRandom(seed);
    const codes = [...cluster.brokers[0].processors.keys()].sort((a, b) => a - b);
    expect(codes.length).to.be.greaterThan(30);
    const plausible = ['0', '1', '3', 'true', 'false', randomName('DECOY'), 'DefaultCluster', '*', 'TAG', 'G_DECOY', '127.0.0.1:1'];
    const oversized = randomBytes(rand, 4 * 1024 * 1024 + 1024);
    const problems: string[] = [];
    for (const code of codes) {
      problems.push(...await sweepCode(brokerAddr, clients, casesFor(code, rand, plausible, oversized), 20000, probe));
    }
    expect(problems, `seed ${seed}:\n${problems.join('\n')}`).to.deep.equal([]);
    expect(failures.events, failures.events.join('\n')).to.deep.equal([]);
  });

  for (const st of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    it(`answers unknown codes with REQUEST_CODE_NOT_SUPPORTED (serialize type ${st})`, async () => {
      for (const code of [-1, 9999, 32767, -32768, 1, 2]) {
        const req = RemotingCommand.createRequest(code, { topic: 'x' }, Buffer.from('garbage'));
        const res = await clients.of(st).invoke(brokerAddr, req, 5000);
        expect(res.code, `code ${code}`).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
        expect(res.remark).to.contain(`request type ${code} not supported`);
        expect(res.serializeType).to.equal(st);
      }
      expect(await probe(clients.of(st))).to.equal(null);
    });
  }

  it('closes a connection with malformed frames and keeps serving the others', async () => {
    const header = Buffer.from(JSON.stringify({ code: RequestCode.GET_BROKER_RUNTIME_INFO, flag: 0, language: 'JAVA', opaque: 1, serializeTypeCurrentRPC: 'JSON', version: 409 }));
    const bad: [string, Buffer, boolean][] = [
      // [label, bytes, whether the broker must close the connection (else: we close after writing)]
      ['truncated frame then close', handFrame(4 + header.length + 100, 0, header.length, header).subarray(0, 20), false],
      ['header length larger than the frame', handFrame(4 + header.length, 0, header.length + 50, header), true],
      ['header length far larger than the frame', handFrame(8, 0, 0xffffff, Buffer.alloc(4)), true],
      ['negative total length', handFrame(-5, 0, 0, Buffer.alloc(0)), true],
      ['total length above the frame limit', handFrame(17 * 1024 * 1024, 0, 0, Buffer.alloc(0)), true],
      ['total length shorter than the mark', handFrame(2, 0, 0, Buffer.alloc(0)), true],
      ['unknown serialize type', handFrame(4 + header.length, 7, header.length, header), true],
      ['JSON header that is not JSON', handFrame(4 + 5, 0, 5, Buffer.from('{"cod')), true],
      ['JSON header that is an array', handFrame(4 + 2, 0, 2, Buffer.from('[]')), true],
      ['binary header cut short', handFrame(4 + 6, 1, 6, Buffer.from([0, 28, 0, 1, 0, 0])), true],
      ['binary header with a huge remark length', handFrame(4 + 17, 1, 17, Buffer.from([0, 28, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff])), true],
    ];
    for (const [label, bytes, mustClose] of bad) {
      const { socket, closed } = await rawSocket(brokerAddr);
      socket.write(bytes);
      if (mustClose) {
        expect(await within(closed, 5000), `${label}: the broker closes the connection`).to.equal(true);
      } else {
        await new Promise((r) => setTimeout(r, 50));
        socket.destroy();
        await closed;
      }
      expect(await probe(clients.json), label).to.equal(null);
    }
    expect(failures.events, failures.events.join('\n')).to.deep.equal([]);
  });

  it('still sends and pulls, and every message acknowledged before the sweep is readable', async () => {
    const res = await clients.binary.invoke(brokerAddr, sendRequest('V2', sendHeader(topic, {}, 0), Buffer.from('after-sweep')), 5000);
    expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const h = SendMessageResponseHeader.decode(res.extFields);
    await waitFor(() => cluster.brokers[0].messageStore.getMaxOffsetInQueue(topic, 0) > h.queueOffset);
    for (let q = 0; q < 4; q++) {
      const expected = acked.filter((a) => a.queueId === q).sort((a, b) => a.queueOffset - b.queueOffset);
      const bodies = await pullAll(q, 0, 32);
      for (const a of expected) expect(bodies[a.queueOffset], `queue ${q} offset ${a.queueOffset}`).to.equal(a.body);
    }
    const after = await clients.json.invoke(brokerAddr, pullRequest(randomName('G'), topic, 0, h.queueOffset), 5000);
    expect(after.code, after.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect(PullMessageResponseHeader.decode(after.extFields).nextBeginOffset).to.equal(h.queueOffset + 1);
    expect(decodeMessages(after.body!)[0].body.toString()).to.equal('after-sweep');
    expect(failures.events, failures.events.join('\n')).to.deep.equal([]);
  });

  it('keeps every acknowledged message across a restart after the sweep (nothing on disk was damaged)', async () => {
    await cluster.restartBroker(0);
    await clients.json.closeChannel(brokerAddr);
    await clients.binary.closeChannel(brokerAddr);
    for (let q = 0; q < 4; q++) {
      const expected = acked.filter((a) => a.queueId === q);
      const bodies = await pullAll(q, 0, 32);
      for (const a of expected) expect(bodies[a.queueOffset], `queue ${q} offset ${a.queueOffset} after restart`).to.equal(a.body);
    }
  });
});
