import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { brokerConfKeys, runDocs } from '../../../scripts/gen-docs';
import { DOCS_DIR, REPO_ROOT, docBlocks, isTypeScript, typeCheckBlocks } from '../../helpers/doc-blocks';

describe('docs/', function () {
  this.timeout(120_000);

  it('holds what npm run docs generates from the code (run npm run docs after changing options or usage texts)', () => {
    expect(runDocs(true)).to.deep.equal([]);
  });

  it('lists every key applyBrokerProperties accepts in the broker.conf reference', () => {
    const page = fs.readFileSync(path.join(DOCS_DIR, 'broker-conf.md'), 'utf8');
    const keys = brokerConfKeys(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'scripts', 'java-config-keys.json'), 'utf8')));
    expect(keys).to.include.members(['brokerName', 'flushDiskType', 'listenPort', 'storePathRootDir', 'fileReservedTime']);
    const missing = keys.filter((k) => !page.includes(`\`${k}\``));
    expect(missing).to.deep.equal([]);
  });

  it('says "No effect in this broker" only of keys nothing in lib/ reads', () => {
    // the config definitions, and the export command that lists keys by name, do not count as reading them
    const definitions = ['lib/broker/broker-config.ts', 'lib/store/message-store-config.ts'];
    const inert: string[] = [];
    for (const file of definitions) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+)\??:/g)) {
        if (m[1].includes('No effect in this broker')) inert.push(m[2]);
      }
    }
    expect(inert).to.include.members(['highSpeedMode', 'transferMsgByHeap']);
    const sources: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const f = path.join(dir, e.name);
        if (e.isDirectory()) walk(f);
        else if (e.name.endsWith('.ts') && !definitions.includes(path.relative(REPO_ROOT, f)) && !f.endsWith(path.join('cli', 'admin', 'export.ts'))) {
          sources.push(fs.readFileSync(f, 'utf8'));
        }
      }
    };
    walk(path.join(REPO_ROOT, 'lib'));
    const read = inert.filter((k) => sources.some((src) => new RegExp(`\\.${k}\\b`).test(src)));
    expect(read, 'keys documented as having no effect that lib/ reads').to.deep.equal([]);
  });

  it('has TypeScript blocks (docs/ and README.md) that compile against the package (and reports one that does not)', () => {
    const blocks = docBlocks().filter(isTypeScript);
    expect(blocks.length).to.be.greaterThan(20);
    // A wrong block checked in the same program shows the check can fail, and where it points.
    const wrong = { page: 'docs/x.md', line: 10, info: 'ts', code: "import { DefaultMQProducer } from 'rocketmq-ts';\nnew DefaultMQProducer({ sendMsgTimeout: 'soon' });" };
    const errors = typeCheckBlocks([...blocks, wrong]);
    expect(errors).to.have.length(1, errors.join('\n'));
    expect(errors[0]).to.match(/^docs\/x\.md:11: Type 'string' is not assignable to type 'number'/);
  });

  it('links every page from docs/README.md and README.md', () => {
    const index = fs.readFileSync(path.join(DOCS_DIR, 'README.md'), 'utf8');
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    for (const page of fs.readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md') && f !== 'README.md' && f !== 'compat-notes.md')) {
      expect(index, `docs/README.md links ${page}`).to.include(`(${page}`);
      expect(readme, `README.md links docs/${page}`).to.include(`(docs/${page}`);
    }
  });

  it('has relative links that point at existing files', () => {
    const broken: string[] = [];
    for (const name of fs.readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md'))) {
      const text = fs.readFileSync(path.join(DOCS_DIR, name), 'utf8');
      for (const m of text.matchAll(/\]\(([^)#:\s]+\.md)(#[^)]*)?\)/g)) {
        // compat-notes.md belongs to the compatibility matrix and may land separately.
        if (m[1] === 'compat-notes.md') continue;
        if (!fs.existsSync(path.join(DOCS_DIR, m[1]))) broken.push(`docs/${name}: ${m[1]}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });
});
