/**
 * The layer rules of eslint.config.mjs catch every breach, also bare folder imports (`'../transport'` resolves to the
 * folder's index and must be refused like `'../transport/remoting-client'`).
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { importCycles, importGraph } from '../../helpers/import-cycles';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

async function breaches(file: string, source: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint: layer rules', function () {
  this.timeout(60_000);

  const refused: Array<[string, string]> = [
    ['lib/producer/x.ts', "import type { RPCHook } from '../transport';"],
    ['lib/producer/x.ts', "import { RemotingClient } from '../transport/remoting-client';"],
    ['lib/consumer/x.ts', "import { DefaultMQProducer } from '../producer';"],
    ['lib/consumer/x.ts', "import { BrokerController } from '../broker';"],
    ['lib/client/x.ts', "import { DefaultMQPushConsumer } from '../consumer';"],
    ['lib/admin/x.ts', "import { DefaultMQProducer } from '../producer/default-mq-producer';"],
    ['lib/store/x.ts', "import { BrokerController } from '../broker';"],
    ['lib/store/x.ts', "import net from 'node:net';"],
    ['lib/namesrv/x.ts', "import { DefaultMessageStore } from '../store';"],
    ['lib/broker/x.ts', "import { NamesrvController } from '../namesrv';"],
    ['lib/ha/x.ts', "import { BrokerController } from '../broker';"],
    ['lib/ha/x.ts', "import { RemotingClient } from '../transport';"],
    ['lib/client/x.ts', "import { HAService } from '../ha';"],
    ['lib/dledger/x.ts', "import { BrokerController } from '../broker';"],
    ['lib/dledger/x.ts', "import { DefaultMessageStore } from '../store';"],
    ['lib/producer/x.ts', "import { DLedgerServer } from '../dledger';"],
    ['lib/broker/x.ts', "import { DefaultMQProducer } from '../producer';"],
    ['lib/transport/x.ts', "import { MQClientAPI } from '../client/mq-client-api';"],
    ['lib/controller/x.ts', "import { BrokerController } from '../broker';"],
    ['lib/controller/x.ts', "import { NamesrvController } from '../namesrv/namesrv-controller';"],
    ['lib/controller/x.ts', "import { DefaultMessageStore } from '../store';"],
    ['lib/producer/x.ts', "import { ControllerManager } from '../controller';"],
    ['lib/index.ts', "export * from './controller';"],
    ['lib/index.ts', "export * from './broker';"],
    ['lib/index.ts', "export * from './grpc';"],
    ['lib/broker/x.ts', "import { GrpcMessagingApplication } from '../grpc';"],
    ['lib/grpc/x.ts', "import { DefaultMessageStore } from '../store/message-store';"],
    ['lib/grpc/x.ts', "import { DefaultMQProducer } from '../producer';"],
    ['lib/producer/x.ts', "import { GrpcMessagingApplication } from '../grpc';"],
    ['protocol/x.ts', "import fs from 'node:fs';"],
    ['protocol/x.ts', "import { RemotingClient } from '../lib/transport';"],
  ];
  for (const [file, source] of refused) {
    it(`refuses in ${file}: ${source}`, async () => {
      expect(await breaches(file, `${source}\nexport {};\n`)).to.have.length(1);
    });
  }

  it('allows the directions the architecture allows', async () => {
    expect(await breaches('lib/producer/x.ts', "import type { RPCHook } from '../client/mq-client-api';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/broker/x.ts', "import { DefaultMessageStore } from '../store/message-store';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/broker/x.ts', "import { DLedgerServer } from '../dledger';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/dledger/x.ts', "import { RemotingServer } from '../transport';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/controller/x.ts', "import { DLedgerServer } from '../dledger';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/namesrv/x.ts', "import { ControllerManager } from '../controller/controller-manager';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/client/x.ts', "import { RemotingClient } from '../transport';\nexport {};\n")).to.deep.equal([]);
    expect(await breaches('lib/grpc/x.ts', "import type { BrokerProcessor } from '../broker/processor/broker-processor';\nexport {};\n")).to.deep.equal([]);
  });
});

describe('lint: import cycles', () => {
  it('no module of lib/ or protocol/ reaches itself through its imports (type-only imports count)', () => {
    const cycles = importCycles(importGraph(ROOT, ['lib', 'protocol']));
    expect(cycles.map((c) => c.join(' -> '))).to.deep.equal([]);
  });

  it('lib/broker has no cycle at all (processors take narrow ports, not the BrokerController)', () => {
    const graph = importGraph(ROOT, ['lib/broker']);
    expect(graph.size).to.be.above(40);
    expect(importCycles(graph)).to.deep.equal([]);
  });

  it('the check finds a cycle, type-only edges included', () => {
    const graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']], ['e.ts', ['e.ts']]]);
    expect(importCycles(graph).map((c) => c.join(' '))).to.have.members(['a.ts b.ts c.ts', 'e.ts']);
  });
});
