/**
 * Requests the broker sends to its clients over their own connections.
 *
 * @see org.apache.rocketmq.broker.client.net.Broker2Client
 */
import type { Logger } from '../../logger';
import type { Channel } from '../../transport/connection';
import type { RemotingServer } from '../../transport/remoting-server';
import { RemotingCommand, type ExtFields } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { NotifyConsumerIdsChangedRequestHeader } from '../../../protocol/header/notify-consumer-ids-changed-request-header';

export class Broker2Client {
  constructor(private readonly server: () => RemotingServer, private readonly logger: Logger) {}

  /** Oneway NOTIFY_CONSUMER_IDS_CHANGED (40) to one consumer. */
  notifyConsumerIdsChanged(channel: Channel, consumerGroup: string): void {
    if (!consumerGroup) {
      this.logger.error('notifyConsumerIdsChanged consumerGroup is null');
      return;
    }
    const request = RemotingCommand.createRequest(
      RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
      NotifyConsumerIdsChangedRequestHeader.encode({ consumerGroup }),
    );
    this.server().invokeOneway(channel, request, 10).catch((err: unknown) => {
      this.logger.error({ err, consumerGroup, remoteAddr: channel.remoteAddress }, 'notifyConsumerIdsChanged exception');
    });
  }

  /** Oneway CHECK_TRANSACTION_STATE (39) to a producer of the group, with the half message as body. */
  checkProducerTransactionState(group: string, channel: Channel, header: ExtFields, messageBody: Buffer): void {
    const request = RemotingCommand.createRequest(RequestCode.CHECK_TRANSACTION_STATE, header, messageBody);
    this.server().invokeOneway(channel, request, 10).catch((err: unknown) => {
      this.logger.error({ err, group, remoteAddr: channel.remoteAddress }, 'check transaction failed');
    });
  }

  /** Forwards a request to a client and returns its answer (GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY). */
  callClient(channel: Channel, request: RemotingCommand, timeoutMillis = 10000): Promise<RemotingCommand> {
    return this.server().invoke(channel, request, timeoutMillis);
  }
}
