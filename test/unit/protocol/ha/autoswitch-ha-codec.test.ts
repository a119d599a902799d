import { expect } from 'chai';
import fs from 'node:fs';
import {
  AutoSwitchMasterFrameDecoder, AutoSwitchSlaveFrameDecoder, HAConnectionState, encodeAutoSwitchMasterFrame, encodeAutoSwitchSlaveFrame,
  type AutoSwitchMasterFrame, type AutoSwitchSlaveFrame,
} from '../../../../protocol/ha/autoswitch-ha-codec';
import { ProtocolError } from '../../../../protocol/errors';
import { goldenPath } from '../../../helpers/golden';

const dir = 'ha-autoswitch-5.3.3';
const m2s = fs.readFileSync(goldenPath(dir, 'master-to-slave.bin'));
const s2m = fs.readFileSync(goldenPath(dir, 'slave-to-master.bin'));
const index = JSON.parse(fs.readFileSync(goldenPath(dir, 'index.json'), 'utf8')) as {
  masterBrokerId: number; slaveBrokerId: number; masterEpoch: number; bodies: string[]; slaveToMasterChunks: number[]; masterToSlaveChunks: number[];
};

/** Splits `buf` into the chunk sizes given (what the socket delivered), or into single bytes. */
function chunks(buf: Buffer, sizes: number[] | 'bytes'): Buffer[] {
  if (sizes === 'bytes') return [...buf].map((b) => Buffer.from([b]));
  const out: Buffer[] = [];
  let at = 0;
  for (const s of sizes) {
    out.push(buf.subarray(at, at + s));
    at += s;
  }
  expect(at).to.equal(buf.length);
  return out;
}

function decodeMaster(parts: Buffer[]): AutoSwitchMasterFrame[] {
  const d = new AutoSwitchMasterFrameDecoder();
  const out = parts.flatMap((c) => d.push(c));
  expect(d.pending).to.equal(0);
  return out;
}

function decodeSlave(parts: Buffer[]): AutoSwitchSlaveFrame[] {
  const d = new AutoSwitchSlaveFrameDecoder();
  const out = parts.flatMap((c) => d.push(c));
  expect(d.pending).to.equal(0);
  return out;
}

describe('protocol/ha AutoSwitch HA codec (two Java 5.3.3 brokers in controller mode, recorded)', () => {
  it('decodes the slave stream: a handshake with its broker id, then offset reports up to the master\'s end', () => {
    const frames = decodeSlave(chunks(s2m, index.slaveToMasterChunks));
    expect(frames[0]).to.deep.equal({ state: HAConnectionState.HANDSHAKE, isSyncFromLastFile: false, isAsyncLearner: false, brokerId: index.slaveBrokerId });
    const reports = frames.slice(1);
    expect(reports.length).to.be.greaterThan(1);
    let last = -1;
    for (const r of reports) {
      expect(r.state).to.equal(HAConnectionState.TRANSFER);
      if (r.state !== HAConnectionState.TRANSFER) continue;
      expect(r.offset).to.be.at.least(last);
      last = r.offset;
    }
    // the first report asks from 0 (an empty slave); the last acknowledges everything the master sent
    expect(reports[0]).to.deep.equal({ state: HAConnectionState.TRANSFER, offset: 0 });
    const transfers = decodeMaster([m2s]).filter((f) => f.state === HAConnectionState.TRANSFER);
    const end = Math.max(...transfers.map((t) => (t.state === HAConnectionState.TRANSFER ? t.offset + t.body.length : 0)));
    expect(last).to.equal(end);
  });

  it('decodes the master stream: a handshake with the epoch entries, then contiguous transfers with epoch and confirm offset', () => {
    const frames = decodeMaster(chunks(m2s, index.masterToSlaveChunks));
    const hs = frames[0];
    expect(hs.state).to.equal(HAConnectionState.HANDSHAKE);
    if (hs.state !== HAConnectionState.HANDSHAKE) return;
    expect(hs.lastEpoch).to.equal(index.masterEpoch);
    expect(hs.epochEntries).to.deep.equal([{ epoch: index.masterEpoch, startOffset: 0 }]);
    const transfers = frames.slice(1);
    let next = 0;
    let confirm = -1;
    const data: Buffer[] = [];
    for (const t of transfers) {
      expect(t.state).to.equal(HAConnectionState.TRANSFER);
      if (t.state !== HAConnectionState.TRANSFER) continue;
      expect(t.epoch).to.equal(index.masterEpoch);
      expect(t.epochStartOffset).to.equal(0);
      expect(t.confirmOffset).to.be.at.least(confirm);
      confirm = t.confirmOffset;
      if (t.body.length === 0) continue; // a heartbeat
      expect(t.offset).to.equal(next);
      next += t.body.length;
      data.push(t.body);
    }
    // the handshake's max offset is what the master held then (the messages sent before the slave came)
    expect(hs.maxPhyOffset).to.be.greaterThan(0).and.at.most(next);
    const log = Buffer.concat(data).toString('latin1');
    for (const body of index.bodies) expect(log).to.include(body);
    // a heartbeat (empty transfer) is among them
    expect(transfers.some((t) => t.state === HAConnectionState.TRANSFER && t.body.length === 0)).to.equal(true);
  });

  it('re-encodes every recorded frame to the recorded bytes, and decodes the same byte by byte', () => {
    const mf = decodeMaster([m2s]);
    expect(Buffer.concat(mf.map(encodeAutoSwitchMasterFrame))).to.deep.equal(m2s);
    expect(decodeMaster(chunks(m2s, 'bytes'))).to.deep.equal(mf);
    const sf = decodeSlave([s2m]);
    expect(Buffer.concat(sf.map(encodeAutoSwitchSlaveFrame))).to.deep.equal(s2m);
    expect(decodeSlave(chunks(s2m, 'bytes'))).to.deep.equal(sf);
  });

  it('refuses a state it cannot frame, and a handshake body that is not whole epoch entries', () => {
    const bad = Buffer.alloc(20);
    bad.writeInt32BE(3, 0);
    expect(() => new AutoSwitchSlaveFrameDecoder().push(bad)).to.throw(ProtocolError);
    expect(() => new AutoSwitchMasterFrameDecoder().push(bad)).to.throw(ProtocolError);
    const hs = Buffer.alloc(20);
    hs.writeInt32BE(HAConnectionState.HANDSHAKE, 0);
    hs.writeInt32BE(13, 4);
    expect(() => new AutoSwitchMasterFrameDecoder().push(hs)).to.throw(ProtocolError, /epoch entries/);
  });
});
