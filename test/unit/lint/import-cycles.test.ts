/**
 * No import cycle in protocol/, lib/transport or lib/client: value and type-only imports both count, since a type
 * cycle today is a load-order cycle as soon as one side needs a value. The scan reads the sources (the `from`
 * clauses of import/export statements), resolves relative specifiers to files, and reports every strongly
 * connected component of more than one file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const CHECKED = ['protocol', 'lib/transport', 'lib/client'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const FROM_RE = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g;

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return null;
}

/** file -> the files it imports (relative imports only). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const deps = new Set<string>();
    for (const m of text.matchAll(FROM_RE)) {
      const dep = resolveImport(file, m[1]);
      if (dep) deps.add(dep);
    }
    graph.set(file, [...deps]);
  }
  return graph;
}

/** The strongly connected components with more than one node (Tarjan), plus self-imports. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('lint: no import cycles', () => {
  it('finds a cycle when there is one (a -> b -> c -> a) and none in a chain', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).to.deep.equal([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', []]]))).to.deep.equal([]);
  });

  it('reads type-only imports and re-exports as edges', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cycles-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "export { a } from './a';\nexport type B = number;\n");
      const graph = importGraph(sourceFiles(dir));
      expect(cycles(graph).map((c) => c.map((f) => path.basename(f)))).to.deep.equal([['a.ts', 'b.ts']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const folder of CHECKED) {
    it(`has none in ${folder}/ (value or type-only)`, () => {
      const graph = importGraph(sourceFiles(path.join(ROOT, folder)));
      expect(graph.size, 'files scanned').to.be.greaterThan(3);
      const found = cycles(graph).map((c) => c.map((f) => path.relative(ROOT, f)).join(' <-> '));
      expect(found).to.deep.equal([]);
    });
  }
});
