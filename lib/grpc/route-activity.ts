/**
 * QueryRoute and QueryAssignment, as Java's proxy in local mode answers them: the broker's own queues of the topic,
 * its endpoint brokerIP1:grpcPort, read-only / write-only / read-write queues by the topic's perm, the topic's
 * message type (attribute message.type, NORMAL by default); one assignment per readable broker (queue -1), or one
 * per queue for a FIFO group.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.route.RouteActivity
 * @see org.apache.rocketmq.proxy.service.route.LocalTopicRouteService
 */
import net from 'node:net';
import { isReadable, isWriteable } from '../../protocol/body/perm-name';
import type { TopicConfig } from '../../protocol/body/topic-config';
import { GrpcProxyError } from '../errors';
import type { ActivityContext } from './activity-context';
import { isConsumeMessageOrderly } from './grpc-client-settings-manager';
import { validateConsumerGroup, validateTopic } from './grpc-validator';
import type { PbBroker, PbMessageQueue, PbResource, PbStatus, QueryAssignmentRequest, QueryRouteRequest } from './pb';
import { buildStatus, topicNotExistMessage } from './response-builder';

/** Address.AddressScheme.buildFrom: IPv4, IPv6 or a domain name. */
export function addressScheme(host: string): string {
  if (net.isIPv4(host)) return 'IPv4';
  if (net.isIPv6(host)) return 'IPv6';
  return 'DOMAIN_NAME';
}

/** TopicConfig.getTopicMessageType: the message.type attribute, NORMAL when absent. */
export function topicMessageType(tc: TopicConfig): string {
  const v = tc.attributes?.get('message.type') ?? tc.attributes?.get('+message.type');
  return v ? v.toUpperCase() : 'NORMAL';
}

function acceptMessageTypes(type: string): string[] {
  switch (type) {
    case 'NORMAL': case 'FIFO': case 'TRANSACTION': case 'DELAY': return [type];
    case 'MIXED': return ['NORMAL', 'FIFO', 'DELAY', 'TRANSACTION'];
    default: return ['MESSAGE_TYPE_UNSPECIFIED'];
  }
}

function permission(perm: number): string {
  const r = isReadable(perm);
  const w = isWriteable(perm);
  if (r && w) return 'READ_WRITE';
  if (r) return 'READ';
  if (w) return 'WRITE';
  return 'NONE';
}

export class RouteActivity {
  constructor(private readonly a: ActivityContext) {}

  /** The broker as routes name it: its name, id 0 (master), brokerIP1 and the gRPC port. */
  broker(): PbBroker {
    const host = this.a.broker.brokerConfig.brokerIP1;
    return {
      name: this.a.broker.brokerConfig.brokerName,
      id: 0,
      endpoints: { scheme: addressScheme(host), addresses: [{ host, port: this.a.grpcPort() }] },
    };
  }

  #topicConfig(topic: string): TopicConfig {
    const tc = this.a.broker.topicConfigManager.selectTopicConfig(topic);
    if (!tc) throw new GrpcProxyError('TOPIC_NOT_FOUND', topicNotExistMessage(topic));
    return tc;
  }

  queryRoute(req: QueryRouteRequest): { status: PbStatus; messageQueues: PbMessageQueue[] } {
    const topicName = validateTopic(req.topic);
    const tc = this.#topicConfig(topicName);
    const topic: PbResource = { resourceNamespace: req.topic?.resourceNamespace ?? '', name: topicName };
    const broker = this.broker();
    const types = acceptMessageTypes(topicMessageType(tc));
    let r = 0;
    let w = 0;
    let rw = 0;
    let n = 0;
    if (isWriteable(tc.perm) && isReadable(tc.perm)) {
      rw = Math.min(tc.writeQueueNums, tc.readQueueNums);
      r = tc.readQueueNums - rw;
      w = tc.writeQueueNums - rw;
    } else if (isWriteable(tc.perm)) {
      w = tc.writeQueueNums;
    } else if (isReadable(tc.perm)) {
      r = tc.readQueueNums;
    } else {
      n = Math.max(1, Math.max(tc.writeQueueNums, tc.readQueueNums));
    }
    const queues: PbMessageQueue[] = [];
    let id = 0;
    const add = (count: number, perm: string) => {
      for (let i = 0; i < count; i++) queues.push({ topic, id: id++, permission: perm, broker, acceptMessageTypes: types });
    };
    add(r, 'READ');
    add(w, 'WRITE');
    add(rw, 'READ_WRITE');
    add(n, 'NONE');
    return { status: buildStatus('OK', 'OK'), messageQueues: queues };
  }

  queryAssignment(req: QueryAssignmentRequest): { status: PbStatus; assignments: { messageQueue: PbMessageQueue }[] } {
    const topicName = validateTopic(req.topic);
    const group = validateConsumerGroup(req.group);
    const tc = this.#topicConfig(topicName);
    const fifo = isConsumeMessageOrderly(this.a.broker.subscriptionGroupManager.findSubscriptionGroupConfig(group));
    const topic: PbResource = { resourceNamespace: req.topic?.resourceNamespace ?? '', name: topicName };
    const assignments: { messageQueue: PbMessageQueue }[] = [];
    if (isReadable(tc.perm) && tc.readQueueNums > 0) {
      const broker = this.broker();
      const perm = permission(tc.perm);
      if (fifo) {
        for (let i = 0; i < tc.readQueueNums; i++) assignments.push({ messageQueue: { topic, id: i, permission: perm, broker, acceptMessageTypes: [] } });
      } else {
        assignments.push({ messageQueue: { topic, id: -1, permission: perm, broker, acceptMessageTypes: [] } });
      }
    }
    if (assignments.length === 0) return { status: buildStatus('FORBIDDEN', 'no readable queue'), assignments: [] };
    return { status: buildStatus('OK', 'OK'), assignments };
  }
}
