/**
 * Java's MQVersion.Version enum as ordinals (what travels in every command's `version` field) and its names.
 * Ordinals 0..15 are the 3.0.0 pre-releases; then `_SNAPSHOT` and release pairs, with 3.0.x running to 15,
 * 3.1.x and 3.2.x from 0, 3.3.x to 3.8.x from 1, and from 3.9.1 on every patch 0..9 up to 5.9.9; the last
 * ordinal is HIGHER_VERSION. 409 = V4_9_8.
 *
 * @see org.apache.rocketmq.common.MQVersion
 */
const PRE_3_0_0 = [
  'SNAPSHOT', 'ALPHA1', 'BETA1', 'BETA2', 'BETA3', 'BETA4', 'BETA5', 'BETA6_SNAPSHOT', 'BETA6', 'BETA7_SNAPSHOT', 'BETA7',
  'BETA8_SNAPSHOT', 'BETA8', 'BETA9_SNAPSHOT', 'BETA9', 'FINAL',
].map((s) => `V3_0_0_${s}`);

let names: string[] | null = null;

function versionNames(): string[] {
  if (names) return names;
  const out = [...PRE_3_0_0];
  const pair = (a: number, b: number, c: number) => out.push(`V${a}_${b}_${c}_SNAPSHOT`, `V${a}_${b}_${c}`);
  for (let c = 1; c <= 15; c++) pair(3, 0, c);
  for (let b = 1; b <= 2; b++) for (let c = 0; c <= 9; c++) pair(3, b, c);
  for (let b = 3; b <= 8; b++) for (let c = 1; c <= 9; c++) pair(3, b, c);
  for (let c = 1; c <= 9; c++) pair(3, 9, c);
  for (let a = 4; a <= 5; a++) for (let b = 0; b <= 9; b++) for (let c = 0; c <= 9; c++) pair(a, b, c);
  out.push('HIGHER_VERSION');
  names = out;
  return out;
}

/** MQVersion.getVersionDesc: the enum name of a version ordinal (HIGHER_VERSION past the end). */
export function getVersionDesc(value: number): string {
  const n = versionNames();
  if (!Number.isInteger(value) || value < 0) return n[0];
  return value >= n.length ? 'HIGHER_VERSION' : n[value];
}

/** MQVersion.value2Version(...).ordinal() the other way: the ordinal of a name, or -1. */
export function versionOrdinal(name: string): number {
  return versionNames().indexOf(name);
}
