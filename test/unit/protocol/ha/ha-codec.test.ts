import { expect } from 'chai';
import fs from 'node:fs';
import {
  HASlaveReportDecoder, HATransferDecoder, encodeHASlaveReport, encodeHATransferHeader, type HATransfer,
} from '../../../../protocol/ha/ha-codec';
import { ProtocolError } from '../../../../protocol/errors';
import { goldenPath } from '../../../helpers/golden';

const m2s = fs.readFileSync(goldenPath('ha', 'master-to-slave.bin'));
const s2m = fs.readFileSync(goldenPath('ha', 'slave-to-master.bin'));

function decodeAll(chunks: Buffer[]): HATransfer[] {
  const d = new HATransferDecoder();
  const out: HATransfer[] = [];
  for (const c of chunks) for (const t of d.push(c)) out.push({ phyOffset: t.phyOffset, data: Buffer.from(t.data) });
  expect(d.buffered).to.equal(0);
  return out;
}

describe('protocol/ha HA stream codec (Java 4.9.8 golden streams)', () => {
  it('decodes the master stream: a heartbeat, then contiguous commit-log transfers', () => {
    const ts = decodeAll([m2s]);
    expect(ts).to.have.length(25);
    expect(ts[0]).to.deep.include({ phyOffset: 0 });
    expect(ts[0].data.length).to.equal(0);
    let next = 0;
    for (const t of ts.slice(1)) {
      expect(t.phyOffset).to.equal(next);
      next += t.data.length;
    }
    expect(next).to.equal(5185);
    // Every transfer holds whole stored records here (V1 magic code at each record start).
    expect(ts[1].data.readInt32BE(4)).to.equal(-626843481);
  });

  it('gives the same transfers fed byte by byte and in two halves', () => {
    const whole = decodeAll([m2s]);
    expect(decodeAll([...m2s].map((x) => Buffer.from([x])))).to.deep.equal(whole);
    const cut = Math.floor(m2s.length / 2) + 3;
    expect(decodeAll([m2s.subarray(0, cut), m2s.subarray(cut)])).to.deep.equal(whole);
  });

  it('re-encodes the master stream byte for byte from the decoded transfers', () => {
    const parts: Buffer[] = [];
    for (const t of decodeAll([m2s])) parts.push(encodeHATransferHeader(t.phyOffset, t.data.length), t.data);
    expect(Buffer.concat(parts).equals(m2s)).to.equal(true);
  });

  it('decodes and re-encodes the slave reports (each the offset after the transfers so far)', () => {
    const offsets: number[] = [];
    const d = new HASlaveReportDecoder();
    for (let i = 0; i < s2m.length; i += 8) offsets.push(d.push(s2m.subarray(i, i + 8))!);
    const ts = decodeAll([m2s]).filter((t) => t.data.length > 0);
    const expected = [0];
    for (const t of ts) expected.push(t.phyOffset + t.data.length);
    expect(offsets).to.deep.equal(expected);
    expect(Buffer.concat(offsets.map(encodeHASlaveReport)).equals(s2m)).to.equal(true);
  });

  it('keeps only the last whole report of a chunk and carries a partial one over', () => {
    const d = new HASlaveReportDecoder();
    expect(d.push(s2m.subarray(0, 20))).to.equal(410);
    expect(d.push(s2m.subarray(20, 23))).to.equal(null);
    expect(d.push(s2m.subarray(23, 24))).to.equal(615);
  });

  it('rejects a negative size', () => {
    const bad = encodeHATransferHeader(0, -1);
    expect(() => new HATransferDecoder().push(bad)).to.throw(ProtocolError);
  });
});
