/**
 * A hash ring of physical nodes, each placed `vNodeCount` times under the keys `<key>-<i>`. A key goes to the
 * first virtual node at or after its hash, wrapping round. The default hash is Java's: the first 4 bytes of the
 * MD5 of the UTF-8 key, big-endian, as an unsigned value. A later node whose hash collides replaces the earlier one.
 *
 * @see org.apache.rocketmq.common.consistenthash.ConsistentHashRouter
 * @see org.apache.rocketmq.common.consistenthash.VirtualNode
 */
import { createHash } from 'node:crypto';
import { ConfigError } from '../../errors';

/** Hashes a string to a number (Java: `long hash(String)`). */
export type HashFunction = (key: string) => number;

/** Something placed on the ring, identified by its key. */
export interface Node {
  getKey(): string;
}

/** ConsistentHashRouter.MD5Hash. */
export const md5Hash: HashFunction = (key) => createHash('md5').update(key, 'utf8').digest().readUInt32BE(0);

interface VirtualNode<T extends Node> {
  readonly physicalNode: T;
  readonly replicaIndex: number;
}

export class ConsistentHashRouter<T extends Node> {
  readonly #ring = new Map<number, VirtualNode<T>>();
  #sortedKeys: number[] | undefined;
  readonly #hashFunction: HashFunction;

  constructor(pNodes: Iterable<T> | null | undefined, vNodeCount: number, hashFunction: HashFunction = md5Hash) {
    if (hashFunction == null) throw new ConfigError('Hash Function is null');
    this.#hashFunction = hashFunction;
    if (pNodes != null) for (const pNode of pNodes) this.addNode(pNode, vNodeCount);
  }

  /** Adds `vNodeCount` more virtual nodes of `pNode`, numbered after those it already has. */
  addNode(pNode: T, vNodeCount: number): void {
    if (vNodeCount < 0) throw new ConfigError(`illegal virtual node counts :${vNodeCount}`);
    const existingReplicas = this.getExistingReplicas(pNode);
    for (let i = 0; i < vNodeCount; i++) {
      const replicaIndex = i + existingReplicas;
      this.#ring.set(this.#hashFunction(`${pNode.getKey()}-${replicaIndex}`), { physicalNode: pNode, replicaIndex });
    }
    this.#sortedKeys = undefined;
  }

  /** Removes every virtual node of `pNode`. */
  removeNode(pNode: T): void {
    for (const [hash, vNode] of this.#ring) {
      if (vNode.physicalNode.getKey() === pNode.getKey()) this.#ring.delete(hash);
    }
    this.#sortedKeys = undefined;
  }

  /** The node `objectKey` maps to, or null on an empty ring. */
  routeNode(objectKey: string): T | null {
    if (this.#ring.size === 0) return null;
    const keys = (this.#sortedKeys ??= [...this.#ring.keys()].sort((a, b) => a - b));
    const hash = this.#hashFunction(objectKey);
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.#ring.get(keys[lo < keys.length ? lo : 0])!.physicalNode;
  }

  getExistingReplicas(pNode: T): number {
    let replicas = 0;
    for (const vNode of this.#ring.values()) if (vNode.physicalNode.getKey() === pNode.getKey()) replicas++;
    return replicas;
  }
}
