import { expect } from 'chai';
import { compareMessageQueue, type MessageQueue } from '../../../../protocol/message/message-queue';
import {
  AllocateMachineRoomNearby,
  AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle,
  AllocateMessageQueueByConfig,
  AllocateMessageQueueByMachineRoom,
  AllocateMessageQueueConsistentHash,
  ConsistentHashRouter,
  md5Hash,
  type AllocateMessageQueueStrategy,
} from '../../../../lib/consumer/rebalance';
import { JAVA_ALLOCATIONS } from './java-allocations';

function queues(topic: string, brokers: string[], perBroker: number): MessageQueue[] {
  const list: MessageQueue[] = [];
  for (const brokerName of brokers) for (let queueId = 0; queueId < perBroker; queueId++) list.push({ topic, brokerName, queueId });
  return list.sort(compareMessageQueue);
}
const short = (mqs: MessageQueue[]) => mqs.map((mq) => `${mq.brokerName}:${mq.queueId}`);

describe('allocation strategies', () => {
  const strategies: Record<string, AllocateMessageQueueStrategy> = {
    AVG: new AllocateMessageQueueAveragely(),
    CIRCLE: new AllocateMessageQueueAveragelyByCircle(),
    CHASH10: new AllocateMessageQueueConsistentHash(),
    CHASH3: new AllocateMessageQueueConsistentHash(3),
  };

  it('give the results Java 4.9.8 gives for the same sorted input', () => {
    expect(JAVA_ALLOCATIONS.length).to.equal(108);
    for (const [kind, topic, brokers, perBroker, cidAll, current, expected] of JAVA_ALLOCATIONS) {
      const got = strategies[kind].allocate('G', current, queues(topic, brokers, perBroker), cidAll);
      expect(short(got), `${kind} ${topic} ${brokers} ${perBroker} ${cidAll} ${current}`).to.deep.equal(expected);
    }
  });

  it('assign every queue exactly once across the group', () => {
    const mqAll = queues('T', ['a', 'b', 'c'], 5);
    const cidAll = ['c1', 'c2', 'c3', 'c4'];
    for (const strategy of Object.values(strategies)) {
      const all = cidAll.flatMap((cid) => short(strategy.allocate('G', cid, mqAll, cidAll)));
      expect(all.sort(), strategy.getName()).to.deep.equal(short(mqAll).sort());
    }
  });

  it('have Java names', () => {
    expect(strategies.AVG.getName()).to.equal('AVG');
    expect(strategies.CIRCLE.getName()).to.equal('AVG_BY_CIRCLE');
    expect(strategies.CHASH10.getName()).to.equal('CONSISTENT_HASH');
    expect(new AllocateMessageQueueByConfig().getName()).to.equal('CONFIG');
    expect(new AllocateMessageQueueByMachineRoom().getName()).to.equal('MACHINE_ROOM');
  });

  it('validate arguments like AbstractAllocateMessageQueueStrategy.check', () => {
    const mqAll = queues('T', ['a'], 2);
    const avg = new AllocateMessageQueueAveragely();
    expect(avg.allocate('G', 'stranger', mqAll, ['c1', 'c2'])).to.deep.equal([]);
    expect(() => avg.allocate('G', '', mqAll, ['c1'])).to.throw('currentCID is empty');
    expect(() => avg.allocate('G', 'c1', [], ['c1'])).to.throw('mqAll is null or mqAll empty');
    expect(() => avg.allocate('G', 'c1', mqAll, [])).to.throw('cidAll is null or cidAll empty');
    expect(() => new AllocateMessageQueueConsistentHash(-1)).to.throw('illegal virtualNodeCnt');
  });

  it('ByConfig returns its configured list whatever the input', () => {
    const list = queues('T', ['x'], 2);
    const s = new AllocateMessageQueueByConfig(list);
    expect(s.allocate('G', 'nobody', [], [])).to.equal(list);
  });

  it('ByMachineRoom keeps "idc@name" brokers of its idcs and splits them as Java', () => {
    // Java output for consumeridcs {hz, sh}, brokers hz@b1 sh@b2 hz@b3 bj@b4 b5 with 3 queues each.
    const mqAll = queues('T', ['hz@b1', 'sh@b2', 'hz@b3', 'bj@b4', 'b5'], 3);
    const s = new AllocateMessageQueueByMachineRoom(['hz', 'sh']);
    const cidAll = ['c1', 'c2', 'c3'];
    expect(short(s.allocate('G', 'c1', mqAll, cidAll))).to.deep.equal(['hz@b1:0', 'hz@b1:1', 'hz@b1:2']);
    expect(short(s.allocate('G', 'c2', mqAll, cidAll))).to.deep.equal(['hz@b3:0', 'hz@b3:1', 'hz@b3:2']);
    expect(short(s.allocate('G', 'c3', mqAll, cidAll))).to.deep.equal(['sh@b2:0', 'sh@b2:1', 'sh@b2:2']);
    // 4 queues for 3 consumers: one each, then the remainder to the first.
    const small = queues('T', ['hz@b1'], 4);
    expect(short(s.allocate('G', 'c1', small, cidAll))).to.deep.equal(['hz@b1:0', 'hz@b1:3']);
    expect(short(s.allocate('G', 'c3', small, cidAll))).to.deep.equal(['hz@b1:2']);
  });

  it('MachineRoomNearby keeps a room\'s queues in the room and shares rooms without consumers', () => {
    const resolver = {
      brokerDeployIn: (mq: MessageQueue) => mq.brokerName.split('-')[0],
      consumerDeployIn: (cid: string) => cid.split('-')[0],
    };
    const s = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver);
    expect(s.getName()).to.equal('MACHINE_ROOM_NEARBY-AVG');
    const mqAll = queues('T', ['hz-b1', 'sh-b1', 'bj-b1'], 2);
    const cidAll = ['hz-c1', 'hz-c2', 'sh-c1'];
    // hz's 2 queues split between hz-c1 and hz-c2; bj has no consumer: its 2 queues go AVG over all 3 consumers.
    expect(short(s.allocate('G', 'hz-c1', mqAll, cidAll))).to.deep.equal(['hz-b1:0', 'bj-b1:0']);
    expect(short(s.allocate('G', 'hz-c2', mqAll, cidAll))).to.deep.equal(['hz-b1:1', 'bj-b1:1']);
    expect(short(s.allocate('G', 'sh-c1', mqAll, cidAll))).to.deep.equal(['sh-b1:0', 'sh-b1:1']);
    expect(() => s.allocate('G', 'hz-c1', [{ topic: 'T', brokerName: '', queueId: 0 }], cidAll)).to.throw('Machine room is null');
  });

  it('ConsistentHashRouter uses the MD5 hash Java uses', () => {
    // Values printed by Java's ConsistentHashRouter.MD5Hash.
    expect(md5Hash('')).to.equal(3558706393);
    expect(md5Hash('a')).to.equal(214005177);
    expect(md5Hash('order-1')).to.equal(1853851049);
    expect(md5Hash('hello world')).to.equal(1589001147);
    expect(md5Hash('中文')).to.equal(2814034467);
    expect(md5Hash('MessageQueue [topic=T, brokerName=b, queueId=0]')).to.equal(562732085);
  });

  it('ConsistentHashRouter adds replicas after existing ones and removes nodes', () => {
    const node = (key: string) => ({ getKey: () => key });
    const router = new ConsistentHashRouter([node('a')], 2);
    expect(router.getExistingReplicas(node('a'))).to.equal(2);
    router.addNode(node('a'), 3);
    expect(router.getExistingReplicas(node('a'))).to.equal(5);
    router.addNode(node('b'), 4);
    router.removeNode(node('a'));
    expect(router.routeNode('anything')!.getKey()).to.equal('b');
    router.removeNode(node('b'));
    expect(router.routeNode('anything')).to.equal(null);
  });
});
