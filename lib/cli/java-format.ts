/**
 * The subset of Java's `String.format` / `printf` the mqadmin commands use, so our tables line up as theirs:
 * `%s`, `%d`, `%f` with flags `-` (left-justify) and `0` (zero-pad), width and precision; `%n` and `%%`.
 * Plus UtilAll's date helpers and frontStringAtLeast.
 *
 * @see java.util.Formatter
 * @see org.apache.rocketmq.common.UtilAll
 */
const SPEC = /%(-)?(0)?(\d+)?(?:\.(\d+))?([sdfn%])/g;

function javaString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${javaString(k)}=${javaString(x)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(javaString).join(', ')}]`;
  return String(v);
}

export function javaFormat(fmt: string, ...args: unknown[]): string {
  let i = 0;
  return fmt.replace(SPEC, (_m, left: string | undefined, zero: string | undefined, width: string | undefined, prec: string | undefined, conv: string) => {
    if (conv === 'n') return '\n';
    if (conv === '%') return '%';
    const arg = args[i++];
    let s: string;
    if (conv === 'd') s = arg === null || arg === undefined ? 'null' : String(Math.trunc(Number(arg)));
    else if (conv === 'f') s = Number(arg).toFixed(prec === undefined ? 6 : Number(prec));
    else s = prec === undefined ? javaString(arg) : javaString(arg).slice(0, Number(prec));
    const w = width === undefined ? 0 : Number(width);
    if (s.length >= w) return s;
    if (left) return s.padEnd(w);
    if (zero && conv !== 's') {
      const neg = s.startsWith('-');
      return (neg ? '-' : '') + (neg ? s.slice(1) : s).padStart(w - (neg ? 1 : 0), '0');
    }
    return s.padStart(w);
  });
}

/** UtilAll.frontStringAtLeast: at most `size` leading characters. */
export function frontStringAtLeast(s: string | null | undefined, size: number): string {
  if (s === null || s === undefined) return 'null';
  return s.length > size ? s.slice(0, size) : s;
}

const p2 = (n: number) => String(n).padStart(2, '0');

/** UtilAll.formatDate(d, "yyyy-MM-dd HH:mm:ss") in local time. */
export function formatDateTime(millis: number): string {
  const d = new Date(millis);
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/** UtilAll.timeMillisToHumanString2: "yyyy-MM-dd HH:mm:ss,SSS" in local time. */
export function timeMillisToHumanString2(millis: number): string {
  return `${formatDateTime(millis)},${String(new Date(millis).getMilliseconds()).padStart(3, '0')}`;
}

/** UtilAll.parseDate(s, "yyyy-MM-dd#HH:mm:ss:SSS") (local time); NaN when it does not match. */
export function parseDateYMDHMSS(s: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})#(\d{2}):(\d{2}):(\d{2}):(\d{3})$/.exec(s);
  if (!m) return NaN;
  return new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]).getTime();
}

/**
 * fastjson's PrettyFormat: a tab per level, one member per line (applied to compact fastjson text). `allMaps`: every
 * object is a Map (as JSON.toJSONString(map, true) of maps of maps), so each starts its first entry on the brace's line.
 */
export function prettyFastjson(text: string, allMaps = false): string {
  let out = '';
  let depth = 0;
  let inString = false;
  const nl = () => '\n' + '\t'.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; out += c; continue; }
    if ((c === '{' || c === '[') && (text[i + 1] === '}' || text[i + 1] === ']')) { out += c + text[++i]; continue; }
    // fastjson's MapSerializer starts a non-empty map with its first entry on the brace's line (a JavaBean gets a
    // newline); from compact text, a map is told by a first key that is not a string (HashMap<Long, String>).
    if (c === '{' && (allMaps || text[i + 1] !== '"')) { depth++; out += c; continue; }
    if (c === '{' || c === '[') { depth++; out += c + nl(); continue; }
    if (c === '}' || c === ']') { depth--; out += nl() + c; continue; }
    if (c === ',') { out += c + nl(); continue; }
    out += c;
  }
  return out;
}
