import { expect } from 'chai';
import { Matrix, regressions, updatedBaseline } from '../../compat/matrix';

describe('compat matrix (test/compat/matrix.ts)', () => {
  function sample(): Matrix {
    const m = new Matrix(['4.9.8', 'ours']);
    m.addRow('send', 'send: sync');
    m.addRow('send', 'send: oneway');
    m.set('send: sync', 'ours', 'ours', { outcome: 'pass' });
    m.set('send: sync', 'ours', '4.9.8', { outcome: 'fail', reason: 'timed out' });
    m.set('send: oneway', 'java', '4.9.8', { outcome: 'na', reason: 'not in 4.9.8' });
    m.set('send: oneway', 'java5', 'ours', { outcome: 'pass' });
    return m;
  }

  it('renders one column per client x server, notes for failures and n.a. cells', () => {
    const md = sample().toMarkdown('t');
    const header = md.split('\n').find((l) => l.startsWith('| feature'))!;
    // ours, Java 4.9.8 client, Java 5.3.3 client, ali-ons, Node 5.x gRPC client, each against the two servers
    expect(header.split('|').length - 3).to.equal(10);
    expect(header).to.include('| Java 5.3.3 client → Java 4.9.8 | Java 5.3.3 client → ours |');
    expect(header).to.match(/\| Node 5\.x gRPC client → Java 4\.9\.8 \| Node 5\.x gRPC client → ours \|$/);
    expect(md).to.include('| send: sync | **FAIL** [1] | pass | · | · | · | · | · | · | · | · |');
    expect(md).to.include('| send: oneway | · | · | n.a. [2] | · | · | pass | · | · | · | · |');
    expect(md).to.include('1. FAIL: timed out');
    expect(md).to.include('2. n.a.: not in 4.9.8');
    expect(md).to.include('2 pass, 1 fail, 1 n.a.');
  });

  it('a regression is a baseline cell that ran and did not pass; cells not attempted are none', () => {
    const m = sample();
    const baseline = { pass: ['send: sync | ours | ours', 'send: sync | ours | 4.9.8', 'send: sync | ours | 5.3.3', 'send: oneway | ours | ours', 'send: oneway | java | 4.9.8'] };
    expect(regressions(m, baseline)).to.deep.equal(['send: sync | ours | 4.9.8', 'send: oneway | java | 4.9.8']);
    expect(m.passed()).to.deep.equal(['send: oneway | java5 | ours', 'send: sync | ours | ours']);
  });

  it('the baseline after a partial run: its passes added, its failures dropped, the cells it left out kept', () => {
    const m = sample();
    const old = {
      pass: ['send: sync | ours | 4.9.8', 'send: sync | ours | 5.3.3', 'send: oneway | ours | ours', 'send: sync | ours | ours', 'gone: a row no more | ours | ours'],
    };
    expect(updatedBaseline(m, old).pass).to.deep.equal([
      'send: oneway | java5 | ours', 'send: oneway | ours | ours', 'send: sync | ours | 5.3.3', 'send: sync | ours | ours',
    ]);
  });
});
