/**
 * The import cycles of a source tree: every relative `import`/`export … from` (type-only ones too) is an edge, and
 * each strongly connected component of more than one module (or a module importing itself) is a cycle.
 * Reads the files with the TypeScript compiler's own pre-processor, so comments and strings never count.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(p, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** The module graph below `roots` (absolute folders), as paths relative to `repoRoot`. */
export function importGraph(repoRoot: string, roots: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const rootDir = path.resolve(repoRoot);
  const files = roots.flatMap((r) => sourceFiles(path.join(rootDir, r)));
  const inside = new Set(files);
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const deps = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolve(file, ref.fileName);
      if (target && inside.has(target)) deps.add(path.relative(rootDir, target));
    }
    graph.set(path.relative(rootDir, file), [...deps]);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one member, or a member importing itself. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return cycles;
}
