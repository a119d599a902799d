import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { file2String, loadConfigFile, string2File } from '../../../lib/store/config-file';
import { tempDir } from './store-test-util';

describe('store: config-file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('rmq-cfg-');
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writes atomically, keeps the previous content as .bak and falls back to it', async () => {
    const f = path.join(dir, 'config', 'topics.json');
    await Promise.all([string2File('{"v":1}', f), string2File('{"v":2}', f)]);
    expect(await file2String(f)).to.equal('{"v":2}');
    expect(await file2String(`${f}.bak`)).to.equal('{"v":1}');
    await fs.writeFile(f, '{"v":');
    expect(await loadConfigFile(f, JSON.parse)).to.deep.equal({ v: 1 });
    await fs.rm(f);
    expect(await loadConfigFile(f, JSON.parse)).to.deep.equal({ v: 1 });
    expect(await loadConfigFile(path.join(dir, 'none.json'), JSON.parse)).to.equal(null);
    expect((await fs.readdir(path.dirname(f))).sort()).to.deep.equal(['topics.json.bak']);
  });
});
