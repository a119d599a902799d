import { expect } from 'chai';
import { type DLedgerEntry, type PushEntryRequest, decodePushEntryRequest, encodeBody } from '../../../lib/dledger';

const entry = (index: number, body: string): DLedgerEntry => ({
  magic: 1, size: 48 + body.length, index, term: 3, pos: index * 100, channel: 0, chainCrc: 0, bodyCrc: 0, body: Buffer.from(body),
});

/** fastjson's form of the bean, written out by hand: keys in alphabetical order, byte[] as base64, no nulls. */
const javaEntry = (e: DLedgerEntry) => ({
  body: e.body.toString('base64'), bodyCrc: 0, chainCrc: 0, channel: 0, index: e.index, magic: 1, pos: e.pos, size: e.size, term: 3,
});

describe('dledger: PushEntryRequest bodies as DLedgerRpcNettyService writes them', () => {
  const base = { group: 'g', remoteId: 'n1', localId: 'n0', code: 200, leaderId: 'n0', term: 3, commitIndex: 6 };

  it('a one-entry APPEND: entry, count 1, batch false, first and last index the entry\'s', () => {
    const e = entry(7, 'hello');
    const req: PushEntryRequest = { ...base, type: 'APPEND', entry: e, batchEntry: [] };
    const text = encodeBody(req as PushEntryRequest & Record<string, unknown>).toString();
    expect(text).to.equal(JSON.stringify({
      batch: false, batchEntry: [], code: 200, commitIndex: 6, count: 1, entry: javaEntry(e), firstEntryIndex: 7, group: 'g',
      lastEntryIndex: 7, leaderId: 'n0', localId: 'n0', remoteId: 'n1', term: 3, totalSize: 0, type: 'APPEND',
    }));
    const back = decodePushEntryRequest(Buffer.from(text));
    expect(back.entry!.body.toString()).to.equal('hello');
    expect(back.batchEntry).to.have.length(0);
  });

  it('a batch APPEND (batchEntry, batch true, count, totalSize) and the same entries again for a second follower', () => {
    const es = [entry(8, 'a'), entry(9, 'bb'), entry(10, 'ccc')];
    for (const remoteId of ['n1', 'n2']) {
      const req: PushEntryRequest = { ...base, remoteId, type: 'APPEND', entry: null, batchEntry: es };
      const text = encodeBody(req as PushEntryRequest & Record<string, unknown>).toString();
      expect(text).to.equal(JSON.stringify({
        batch: true, batchEntry: es.map(javaEntry), code: 200, commitIndex: 6, count: 3, firstEntryIndex: 8, group: 'g',
        lastEntryIndex: 10, leaderId: 'n0', localId: 'n0', remoteId, term: 3, totalSize: es.reduce((s, e) => s + e.size, 0), type: 'APPEND',
      }));
      expect(decodePushEntryRequest(Buffer.from(text)).batchEntry.map((e) => e.body.toString())).to.deep.equal(['a', 'bb', 'ccc']);
    }
  });

  it('a COMMIT: no entry, count 0, indexes -1', () => {
    const req: PushEntryRequest = { ...base, type: 'COMMIT', entry: null, batchEntry: [] };
    expect(JSON.parse(encodeBody(req as PushEntryRequest & Record<string, unknown>).toString())).to.deep.equal({
      batch: false, batchEntry: [], code: 200, commitIndex: 6, count: 0, firstEntryIndex: -1, group: 'g', lastEntryIndex: -1,
      leaderId: 'n0', localId: 'n0', remoteId: 'n1', term: 3, totalSize: 0, type: 'COMMIT',
    });
  });
});
