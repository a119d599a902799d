/**
 * Batches: Java's rules for what may travel in one SEND_BATCH_MESSAGE, and a splitter for lists over the size
 * limit (what Java's batch example does by hand with its ListSplitter).
 *
 * @see org.apache.rocketmq.common.message.MessageBatch#generateFromList
 */
import { MessageConst } from '../../protocol/message/message-const';
import { type Message, getDelayTimeLevel, isWaitStoreMsgOK } from '../../protocol/message/message';
import { propertiesToString } from '../../protocol/message/properties';
import { InvalidArgumentError, MQClientError } from '../errors';
import { MixAll } from '../client/mix-all';

/** Java's batch rules: no delay level, no retry topic, one topic, one waitStoreMsgOK. Throws MQClientError. */
export function checkBatch(messages: readonly Message[]): void {
  if (messages.length === 0) throw new InvalidArgumentError('Failed to initiate the MessageBatch: the batch is empty');
  const first = messages[0];
  for (const m of messages) {
    if (getDelayTimeLevel(m) > 0) throw new InvalidArgumentError('Failed to initiate the MessageBatch: TimeDelayLevel is not supported for batching');
    if (m.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
      throw new InvalidArgumentError('Failed to initiate the MessageBatch: Retry Group is not supported for batching');
    }
    if (m !== first) {
      if (m.topic !== first.topic) throw new InvalidArgumentError('Failed to initiate the MessageBatch: The topic of the messages in one batch should be the same');
      if (isWaitStoreMsgOK(m) !== isWaitStoreMsgOK(first)) {
        throw new InvalidArgumentError('Failed to initiate the MessageBatch: The waitStoreMsgOK of the messages in one batch should the same');
      }
    }
  }
}

/** The bytes one message takes in a batch body: 20 + body + 2 + properties (UTF-8), plus the topic as Java's example counts it. */
export function batchEntrySize(msg: Message): number {
  return 20 + msg.body.length + 2 + Buffer.byteLength(propertiesToString(msg.properties), 'utf8') + Buffer.byteLength(msg.topic, 'utf8');
}

/** Default batch size limit: the producer's maxMessageSize default, 4 MiB. */
export const DEFAULT_BATCH_SIZE_LIMIT = 4 * 1024 * 1024;

/**
 * Splits `messages` into consecutive batches of at most `sizeLimit` bytes each (by batchEntrySize, which counts a
 * UNIQ_KEY the producer will add). A single message larger than the limit is an MQClientError.
 */
export function splitBatch(messages: readonly Message[], sizeLimit: number = DEFAULT_BATCH_SIZE_LIMIT): Message[][] {
  const out: Message[][] = [];
  let current: Message[] = [];
  let currentSize = 0;
  const uniqReserve = MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX.length + 2 + 56;
  for (const m of messages) {
    const size = batchEntrySize(m) + (m.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] ? 0 : uniqReserve);
    if (size > sizeLimit) throw new MQClientError(13, `a message of ${size} bytes does not fit a batch of at most ${sizeLimit} bytes`);
    if (currentSize + size > sizeLimit && current.length > 0) {
      out.push(current);
      current = [];
      currentSize = 0;
    }
    current.push(m);
    currentSize += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
