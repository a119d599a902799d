/**
 * Transactional messages: a half message is stored, the local transaction runs, then the message is committed
 * (delivered) or rolled back. An UNKNOW answer leaves the decision to the broker's check, which calls
 * checkLocalTransaction on a producer of the group.
 * Run: ROCKETMQ_NAMESRV_ADDR=h:p node dist/examples/transaction-producer.js
 */
import { LocalTransactionState, TransactionMQProducer, createMessage, type Message, type MessageExt } from '../lib/index';

const namesrvAddr = process.env.ROCKETMQ_NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = process.env.TOPIC ?? 'TopicTest';

/** The application's record of its local transactions, by transaction id. */
const localStates = new Map<string, LocalTransactionState>();

async function main(): Promise<void> {
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
    // Stay up long enough for the broker to check the undecided ones (transactionTimeOut 6 s, check every 60 s by default).
    await new Promise((r) => setTimeout(r, Number(process.env.LINGER_MS ?? 70000)));
  } finally {
    await producer.shutdown();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
