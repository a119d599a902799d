/**
 * The Java broker's REGISTER_BROKER frames replayed into our name server over a real socket; its route and
 * cluster-info answers compared with the Java name server's answers captured beside them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { decodeClusterInfo } from '../../../protocol/body/cluster-info';
import { decodeTopicRouteData } from '../../../protocol/body/topic-route-data';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { javaCrc32 } from '../../../lib/namesrv/crc32';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { readFrame } from '../../helpers/golden';

function golden(scenario: string, file: string): RemotingCommand {
  return RemotingCommand.decode(readFrame(scenario, file).subarray(4));
}

describe('namesrv: Java captures replayed', () => {
  let tmp: string;
  let namesrv: NamesrvController;
  const clients: RemotingClient[] = [];

  /** Sends a captured request; the broker sends some registrations oneway (flag 2): those get no answer. */
  async function send(client: RemotingClient, scenario: string, file: string): Promise<RemotingCommand> {
    const request = golden(scenario, file);
    if (request.isOneway) {
      await client.invokeOneway(namesrv.address, request, 3000);
      // A request on the same connection behind it is processed after it: the registration is applied.
      return client.invoke(namesrv.address, RemotingCommand.createRequest(98 /* GET_ALL_TOPIC_CONFIG: not a name-server code */), 3000)
        .then(() => new RemotingCommand({ code: 0 }));
    }
    return client.invoke(namesrv.address, request, 3000);
  }
  function newClient(): RemotingClient {
    const c = new RemotingClient();
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'namesrv-golden-'));
    namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(tmp, 'kvConfig.json'), configStorePath: path.join(tmp, 'namesrv.properties') });
    await namesrv.start();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.shutdown();
    await namesrv.shutdown();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('bodyCrc32 of a captured registration is Java UtilAll.crc32 of its body', () => {
    const req = golden('01-startup', '19876-54610/0000-c2s-req103.bin');
    expect(javaCrc32(req.body as Buffer)).to.equal(Number(req.extFields?.bodyCrc32));
  });

  it('01-startup: routes and cluster info byte for byte as the Java 4.9.8 name server wrote them', async () => {
    const broker = newClient();
    for (let i = 0; i <= 5; i++) {
      const resp = await send(broker, '01-startup', `19876-54610/000${i}-c2s-req103.bin`);
      expect(resp.code, `registration ${i}`).to.equal(0);
      if (golden('01-startup', `19876-54610/000${i}-c2s-req103.bin`).isOneway) continue;
      expect(resp.extFields ?? {}).to.deep.equal({});
      if (i === 0) expect(resp.body).to.equal(null);
    }
    const client = newClient();
    const tbw = await send(client, '01-startup', '19876-42872/0001-c2s-req105.bin');
    expect(tbw.code).to.equal(0);
    expect(tbw.body?.toString()).to.equal(golden('01-startup', '19876-42872/0001-s2c-resp0.bin').body?.toString());
    const cap = await send(client, '01-startup', '19876-41646/0000-c2s-req105.bin');
    expect(cap.body?.toString()).to.equal(golden('01-startup', '19876-41646/0000-s2c-resp0.bin').body?.toString());
    const cluster = await send(client, '01-startup', '19876-42872/0000-c2s-req106.bin');
    const javaCluster = golden('01-startup', '19876-42872/0000-s2c-resp0.bin');
    expect(cluster.body?.toString()).to.equal(javaCluster.body?.toString());
    expect(decodeClusterInfo(cluster.body as Buffer)).to.deep.equal(decodeClusterInfo(javaCluster.body as Buffer));

    // mqadmin's PUT_KV_CONFIG of the order topic; the next registration gets the ORDER_TOPIC_CONFIG table.
    const put = await send(client, '01-startup', '19876-42862/0003-c2s-req100.bin');
    expect(put.code).to.equal(0);
    const again = await send(broker, '01-startup', '19876-54610/0003-c2s-req103.bin');
    expect(again.body?.toString()).to.equal(golden('01-startup', '19876-54610/0003-s2c-resp0.bin').body?.toString());
  });

  it('02-produce: an unknown topic is TOPIC_NOT_EXIST with the Java remark; OrderTopic route matches', async () => {
    const client = newClient();
    // Asked before the broker's registration that creates SqlTopic, as in the capture.
    const sql = await send(client, '02-produce', '19876-59412/0001-c2s-req105.bin');
    const javaSql = golden('02-produce', '19876-59412/0001-s2c-resp17.bin');
    expect(sql.code).to.equal(17);
    expect(sql.remark).to.equal(javaSql.remark);
    const broker = newClient();
    expect((await send(broker, '02-produce', '19876-54610/0000-c2s-req103.bin')).code).to.equal(0);
    const order = await send(client, '02-produce', '19876-59402/0001-c2s-req105.bin');
    expect(order.body?.toString()).to.equal(golden('02-produce', '19876-59402/0001-s2c-resp0.bin').body?.toString());
  });

  it('09-master-slave: the slave gets the master and HA address; routes with both, then the slave alone', async () => {
    const master = newClient();
    const slave = newClient();
    expect((await send(master, '09-master-slave', '19876-49006/0000-c2s-req103.bin')).code).to.equal(0);
    const slaveResp = await send(slave, '09-master-slave', '19876-49020/0000-c2s-req103.bin');
    const javaSlaveResp = golden('09-master-slave', '19876-49020/0000-s2c-resp0.bin');
    expect(slaveResp.code).to.equal(0);
    expect(slaveResp.extFields).to.deep.equal(javaSlaveResp.extFields);
    expect(slaveResp.extFields).to.deep.equal({ haServerAddr: '127.0.0.1:20912', masterAddr: '127.0.0.1:20911' });
    await send(master, '09-master-slave', '19876-49006/0001-c2s-req103.bin');
    await send(slave, '09-master-slave', '19876-49020/0001-c2s-req103.bin');
    const client = newClient();
    const both = await send(client, '09-master-slave', '19876-40844/0001-c2s-req105.bin');
    expect(both.body?.toString()).to.equal(golden('09-master-slave', '19876-40844/0001-s2c-resp0.bin').body?.toString());
    // The master unregisters (it stopped): the slave serves the topic alone.
    const unreg = await send(master, '09-master-slave', '19876-49006/0003-c2s-req104.bin');
    expect(unreg.code).to.equal(0);
    const slaveOnly = await send(client, '09-master-slave', '19876-52346/0003-c2s-req105.bin');
    expect(slaveOnly.body?.toString()).to.equal(golden('09-master-slave', '19876-52346/0003-s2c-resp0.bin').body?.toString());
    const javaRoute = decodeTopicRouteData(golden('09-master-slave', '19876-52346/0003-s2c-resp0.bin').body as Buffer);
    expect(decodeTopicRouteData(slaveOnly.body as Buffer)).to.deep.equal(javaRoute);
  });

  it('10-java5-broker: a 5.3.3 broker registers; route and cluster info as the 5.3.3 name server wrote them', async () => {
    const broker = newClient();
    for (const f of ['0000', '0001', '0002']) {
      expect((await send(broker, '10-java5-broker', `19876-39916/${f}-c2s-req103.bin`)).code).to.equal(0);
    }
    const cluster = await send(broker, '10-java5-broker', '19876-39916/0003-c2s-req106.bin');
    expect(cluster.body?.toString()).to.equal(golden('10-java5-broker', '19876-39916/0003-s2c-resp0.bin').body?.toString());
    const client = newClient();
    const route = await send(client, '10-java5-broker', '19876-33144/0001-c2s-req105.bin');
    expect(route.body?.toString()).to.equal(golden('10-java5-broker', '19876-33144/0001-s2c-resp0.bin').body?.toString());
    const tx = await send(client, '10-java5-broker', '19876-33172/0000-c2s-req105.bin');
    expect(tx.code).to.equal(17);
  });
});
