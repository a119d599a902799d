import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { atomicWrite } from '../../../lib/namesrv/kv-config-manager';

describe('atomicWrite (Java MixAll.string2File)', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-write-')); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  it('concurrent writes of one file all succeed, in call order: the last content wins and the previous one is in .bak', async () => {
    const file = path.join(dir, 'sub', 'namesrv.properties');
    const contents = Array.from({ length: 30 }, (_, i) => `listenPort=${9000 + i}\n`);
    await Promise.all(contents.map((c) => atomicWrite(file, c)));
    expect(fs.readFileSync(file, 'utf8')).to.equal(contents[29]);
    expect(fs.readFileSync(`${file}.bak`, 'utf8')).to.equal(contents[28]);
    expect(fs.existsSync(`${file}.tmp`)).to.equal(false);
  });
});
