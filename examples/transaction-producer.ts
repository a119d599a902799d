/**
 * Transactional messages: a half message is stored, the local transaction runs, then the message is committed
 * (delivered) or rolled back. An UNKNOW answer leaves the decision to the broker's check, which calls
 * checkLocalTransaction on a producer of the group.
 * Run: node dist/examples/transaction-producer.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster
 * whose broker checks undecided transactions every second).
 */
import { LocalTransactionState, TransactionMQProducer, createMessage, type Message, type MessageExt } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

/** The application's record of its local transactions, by transaction id. */
const localStates = new Map<string, LocalTransactionState>();
/** Transaction ids the broker has asked about. */
const checked = new Set<string>();

async function main({ namesrvAddr, embedded }: ExampleContext): Promise<void> {
  const producer = new TransactionMQProducer({
    producerGroup: 'ExampleTransactionProducer',
    namesrvAddr,
    checkThreadPoolMaxSize: 4,
    transactionListener: {
      async executeLocalTransaction(msg: Message, arg: unknown): Promise<LocalTransactionState> {
        // Do the local work here (a database write...). Every third one is left undecided for the check.
        const i = arg as number;
        const state = i % 3 === 0 ? LocalTransactionState.COMMIT_MESSAGE
          : i % 3 === 1 ? LocalTransactionState.ROLLBACK_MESSAGE : LocalTransactionState.UNKNOW;
        localStates.set(msg.transactionId ?? '', i % 3 === 2 ? LocalTransactionState.COMMIT_MESSAGE : state);
        return state;
      },
      checkLocalTransaction(msg: MessageExt): LocalTransactionState {
        checked.add(msg.transactionId ?? '');
        return localStates.get(msg.transactionId ?? '') ?? LocalTransactionState.UNKNOW;
      },
    },
  });
  await producer.start();
  try {
    for (let i = 0; i < 9; i++) {
      const result = await producer.sendMessageInTransaction(createMessage(topic, `Transaction ${i}`, { tags: 'TagTx' }), i);
      console.log(result.sendStatus, result.localTransactionState, result.msgId);
    }
    // Stay up until the broker has checked the undecided ones (after transactionTimeOut, 6 s by default, at its next
    // check round, every 60 s by default), at most LINGER_MS.
    const undecided = [...localStates.keys()].filter((_, i) => i % 3 === 2);
    console.log(embedded
      ? `waiting for the broker to check ${undecided.length} undecided transactions (the embedded broker checks every second)...`
      : `waiting up to ${Math.round(Number(process.env.LINGER_MS ?? 70_000) / 1000)} s for the broker to check ${undecided.length} undecided ` +
        'transactions: a broker checks every transactionCheckInterval (60 s by default; set it lower in broker.conf to see it sooner)...');
    const deadline = Date.now() + Number(process.env.LINGER_MS ?? 70_000);
    while (Date.now() < deadline && !undecided.every((id) => checked.has(id))) await new Promise((r) => setTimeout(r, 200));
    console.log(`${undecided.filter((id) => checked.has(id)).length} of ${undecided.length} undecided transactions checked and committed`);
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main, { brokerConfig: { transactionCheckInterval: 1000, transactionTimeOut: 1000 } }));
