/**
 * The fenced code blocks of docs/*.md and README.md: the TypeScript ones are type-checked against the package, the getting-started
 * ones marked ```ts run are run against the in-process cluster.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The repository root (this file runs as dist/test/helpers/doc-blocks.js). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const DOCS_DIR = path.join(REPO_ROOT, 'docs');

export interface DocBlock {
  /** docs/<page>.md */
  page: string;
  /** 1-based line of the block's first code line in the page. */
  line: number;
  /** The info string after the fence (`ts`, `ts run`, `js`, ...). */
  info: string;
  code: string;
}

/** Every fenced block of every docs/*.md page and of README.md, in page and line order. */
export function docBlocks(): DocBlock[] {
  const out: DocBlock[] = [];
  const pages = [...fs.readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`), 'README.md'];
  for (const page of pages) {
    const lines = fs.readFileSync(path.join(REPO_ROOT, page), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(\S.*)?$/.exec(lines[i]);
      if (!open) continue;
      const start = i + 1;
      let end = start;
      while (end < lines.length && lines[end] !== '```') end++;
      out.push({ page, line: start + 1, info: (open[1] ?? '').trim(), code: lines.slice(start, end).join('\n') });
      i = end;
    }
  }
  return out;
}

export const isTypeScript = (b: DocBlock): boolean => b.info === 'ts' || b.info.startsWith('ts ') || b.info === 'typescript';

/**
 * Type-checks each block as its own module (top-level await allowed) against the package's sources, in memory:
 * 'rocketmq-ts' resolves to lib/index.ts, 'rocketmq-ts/server' to lib/server.ts, 'rocketmq-ts/dashboard' to lib/dashboard/dashboard-server.ts. Returns one line per error.
 */
export function typeCheckBlocks(blocks: readonly DocBlock[]): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    baseUrl: REPO_ROOT,
    paths: { 'rocketmq-ts': ['lib/index.ts'], 'rocketmq-ts/server': ['lib/server.ts'], 'rocketmq-ts/dashboard': ['lib/dashboard/dashboard-server.ts'] },
  };
  const virtual = new Map<string, DocBlock>();
  blocks.forEach((b, i) => virtual.set(path.join(DOCS_DIR, `__block_${i}_${path.basename(b.page, '.md')}.ts`), b));
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(path.normalize(f)) || fileExists.call(host, f);
  host.readFile = (f) => {
    const b = virtual.get(path.normalize(f));
    return b ? `${b.code}\nexport {};\n` : readFile.call(host, f);
  };
  host.getSourceFile = (f, lang, onError, create) => {
    const b = virtual.get(path.normalize(f));
    return b ? ts.createSourceFile(f, `${b.code}\nexport {};\n`, lang, true) : getSourceFile.call(host, f, lang, onError, create);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const errors: string[] = [];
  for (const [file, block] of virtual) {
    const sf = program.getSourceFile(file)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const { line } = d.start === undefined ? { line: 0 } : sf.getLineAndCharacterOfPosition(d.start);
      errors.push(`${block.page}:${block.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}

/**
 * Turns a block into a CommonJS module whose `__main()` runs its statements (imports stay at the top), so a snippet
 * with top-level await runs as written.
 */
export function runnableModule(code: string): string {
  const sf = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, true);
  const imports: string[] = [];
  const body: string[] = [];
  for (const s of sf.statements) (ts.isImportDeclaration(s) ? imports : body).push(s.getFullText(sf));
  const wrapped = `${imports.join('')}\nexport async function __main(): Promise<void> {${body.join('')}\n}\n`;
  return ts.transpileModule(wrapped, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
}
