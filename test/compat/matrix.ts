/**
 * The compatibility matrix: one row per feature, one column per client x server pair, each cell pass / FAIL / n.a.
 * with a reason. Rendered as markdown (printed and written to compat-report.md) and compared with the committed
 * baseline (the cells that passed before) so CI fails only when a baseline-passing cell fails.
 */
import fs from 'node:fs';

export type ClientId = 'ours' | 'java' | 'java5' | 'ons' | 'grpc';
export type ServerId = 'ours' | '4.9.8' | '5.3.3' | 'external';

export const CLIENT_LABEL: Record<ClientId, string> = {
  ours: 'ours', java: 'Java 4.9.8 client', java5: 'Java 5.3.3 client', ons: 'ali-ons', grpc: 'Node 5.x gRPC client',
};
export const SERVER_LABEL: Record<ServerId, string> = {
  ours: 'ours', '4.9.8': 'Java 4.9.8', '5.3.3': 'Java 5.3.3', external: 'your cluster',
};
export const CLIENTS: readonly ClientId[] = ['ours', 'java', 'java5', 'ons', 'grpc'];

export type Outcome = 'pass' | 'fail' | 'na';

export interface Cell {
  outcome: Outcome;
  /** Why (failures and n.a. cells); elapsed time for passes. */
  reason?: string;
  ms?: number;
}

export function cellKey(row: string, client: ClientId, server: ServerId): string {
  return `${row} | ${client} | ${server}`;
}

export class Matrix {
  readonly rows: Array<{ section: string; row: string }> = [];
  readonly cells = new Map<string, Cell>();

  constructor(readonly servers: readonly ServerId[]) {}

  addRow(section: string, row: string): void {
    if (!this.rows.some((r) => r.row === row)) this.rows.push({ section, row });
  }

  set(row: string, client: ClientId, server: ServerId, cell: Cell): void {
    this.cells.set(cellKey(row, client, server), cell);
  }

  get(row: string, client: ClientId, server: ServerId): Cell | undefined {
    return this.cells.get(cellKey(row, client, server));
  }

  counts(): Record<Outcome, number> {
    const c: Record<Outcome, number> = { pass: 0, fail: 0, na: 0 };
    for (const cell of this.cells.values()) c[cell.outcome]++;
    return c;
  }

  /** Keys of the cells that passed. */
  passed(): string[] {
    return [...this.cells].filter(([, c]) => c.outcome === 'pass').map(([k]) => k).sort();
  }

  /** The markdown report: a table per section, then the notes the cells point to. */
  toMarkdown(title: string): string {
    const columns: Array<[ClientId, ServerId]> = [];
    for (const client of CLIENTS) {
      for (const server of this.servers) {
        if (server === 'external' && client !== 'ours') continue;
        columns.push([client, server]);
      }
    }
    const notes: string[] = [];
    const noteOf = new Map<string, number>();
    const note = (text: string): number => {
      let n = noteOf.get(text);
      if (n === undefined) {
        notes.push(text);
        n = notes.length;
        noteOf.set(text, n);
      }
      return n;
    };
    const out: string[] = [`# ${title}`, ''];
    const c = this.counts();
    out.push(`${c.pass} pass, ${c.fail} fail, ${c.na} n.a.; columns are client → server. "·" = no scenario for that client`
      + ' (the Java driver has no lite pull or admin API: the mqadmin rows stand for it; the Java 5.3.3 client runs the same'
      + ' driver on 5.3.3\'s jars; ali-ons has its own row; the Node 5.x gRPC client, rocketmq-client-nodejs, has its own section)'
      + ' or a cell'
      + ' the run left out (`--ci`, `--servers`, `--rows`).', '');
    let section = '';
    for (const { section: s, row } of this.rows) {
      if (s !== section) {
        section = s;
        out.push('', `## ${s}`, '');
        out.push(`| feature | ${columns.map(([cl, sv]) => `${CLIENT_LABEL[cl]} → ${SERVER_LABEL[sv]}`).join(' | ')} |`);
        out.push(`|---|${columns.map(() => '---').join('|')}|`);
      }
      const cells = columns.map(([cl, sv]) => {
        const cell = this.get(row, cl, sv);
        if (!cell) return '·';
        if (cell.outcome === 'pass') return 'pass';
        const n = note(`${cell.outcome === 'fail' ? 'FAIL' : 'n.a.'}: ${cell.reason ?? ''}`.trim());
        return `${cell.outcome === 'fail' ? '**FAIL**' : 'n.a.'} [${n}]`;
      });
      out.push(`| ${row} | ${cells.join(' | ')} |`);
    }
    if (notes.length > 0) {
      out.push('', '## Notes', '');
      notes.forEach((t, i) => out.push(`${i + 1}. ${t.replace(/\s+/g, ' ').slice(0, 600)}`));
    }
    return out.join('\n') + '\n';
  }
}

export interface Baseline {
  /** Cells (row | client | server) that passed when the baseline was written. */
  pass: string[];
}

export function readBaseline(file: string): Baseline {
  if (!fs.existsSync(file)) return { pass: [] };
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Baseline;
}

/**
 * Baseline cells that ran this time and did not pass. A cell not attempted (a column not run — Java 5.3.3 absent,
 * `--servers`, `--rows`, the rows `--ci` leaves out) holds no regression: every attempted cell gets a result, a
 * server that does not start fails all its cells.
 */
export function regressions(m: Matrix, baseline: Baseline): string[] {
  return baseline.pass.filter((k) => {
    const cell = m.cells.get(k);
    return cell !== undefined && cell.outcome !== 'pass';
  });
}

/**
 * The baseline after a run: the cells that passed in it, and the baseline's cells the run did not attempt (a column or
 * rows left out with `--servers` / `--rows`), so that a partial run adds its passes without dropping the others'.
 * A cell the run attempted and did not pass leaves the baseline; so does a cell of a row no scenario has any more.
 */
export function updatedBaseline(m: Matrix, old: Baseline): Baseline {
  const rows = new Set(m.rows.map((r) => r.row));
  const kept = old.pass.filter((k) => !m.cells.has(k) && rows.has(k.slice(0, k.indexOf(' | '))));
  return { pass: [...new Set([...kept, ...m.passed()])].sort() };
}
