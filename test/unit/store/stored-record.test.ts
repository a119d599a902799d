import { expect } from 'chai';
import {
  cachedSocketAddressBytes, createMessageId, scanDispatchProperties, socketAddressBytes, writeI64,
} from '../../../lib/store/stored-record';
import { findProperty } from '../../../protocol/message/properties';

describe('store: stored-record helpers of the append path', () => {
  it('scanDispatchProperties finds what findProperty finds, in one pass', () => {
    const cases = [
      '',
      'TAGS\u0001a',
      'TAGS\u0001a\u0002',
      'KEYS\u0001k1 k2\u0002TAGS\u0001tagA\u0002UNIQ_KEY\u0001ABCDEF\u0002DELAY\u00013',
      'TAGSX\u0001no\u0002XTAGS\u0001no\u0002KEY\u0001no\u0002UNIQ_KEYS\u0001no',
      'TAGS\u0001first\u0002TAGS\u0001second\u0002KEYS\u0001\u0002UNIQ_KEY\u0001u',
      '\u0001\u0002TAGS\u0001\u0002\u0002DELAY\u000118\u0002TAGS',
      'a\u0001b\u0002KEYS\u0001中文 key',
    ];
    for (const s of cases) {
      const p = scanDispatchProperties(s);
      expect(p.tags, s).to.equal(findProperty(s, 'TAGS'));
      expect(p.keys, s).to.equal(findProperty(s, 'KEYS'));
      expect(p.uniqKey, s).to.equal(findProperty(s, 'UNIQ_KEY'));
      expect(p.delayLevel, s).to.equal(findProperty(s, 'DELAY'));
    }
  });

  it('createMessageId matches the plain hex of host bytes + i64 offset', () => {
    const hosts = [socketAddressBytes({ host: '10.1.2.3', port: 10911 }), socketAddressBytes({ host: '::1', port: 80 })];
    for (const h of hosts) {
      for (const off of [0, 1, 255, 4096, 2 ** 32 - 1, 2 ** 32, 123456789012345, Number.MAX_SAFE_INTEGER]) {
        const b = Buffer.alloc(h.length + 8);
        h.copy(b, 0);
        writeI64(b, off, h.length);
        expect(createMessageId(h, off)).to.equal(b.toString('hex').toUpperCase());
      }
    }
  });

  it('cachedSocketAddressBytes equals socketAddressBytes and keeps hosts and ports apart', () => {
    const a = cachedSocketAddressBytes({ host: '127.0.0.1', port: 1 });
    expect(a.equals(socketAddressBytes({ host: '127.0.0.1', port: 1 }))).to.equal(true);
    expect(cachedSocketAddressBytes({ host: '127.0.0.1', port: 2 }).equals(socketAddressBytes({ host: '127.0.0.1', port: 2 }))).to.equal(true);
    expect(cachedSocketAddressBytes({ host: 'fe80::2', port: 1 }).equals(socketAddressBytes({ host: 'fe80::2', port: 1 }))).to.equal(true);
    expect(cachedSocketAddressBytes({ host: '127.0.0.1', port: 1 })).to.equal(a);
  });
});
