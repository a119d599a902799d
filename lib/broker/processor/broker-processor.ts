/**
 * The shape of a broker processor: one class per request family, constructed with the controller, registered
 * for each of its codes in the controller's table.
 *
 * @see org.apache.rocketmq.remoting.netty.NettyRequestProcessor
 */
import type { RemotingContext } from '../../transport/processor';
import type { RemotingCommand } from '../../../protocol/remoting-command';

export interface BrokerProcessor {
  readonly requestCodes: readonly number[];
  processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null>;
}
