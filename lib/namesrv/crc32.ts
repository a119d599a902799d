/**
 * CRC-32 (IEEE, as java.util.zip.CRC32) and Java's UtilAll.crc32, which keeps the low 31 bits so the value
 * is a non-negative int: the REGISTER_BROKER header's bodyCrc32. (node:zlib.crc32 needs Node 20.15.)
 *
 * @see org.apache.rocketmq.common.UtilAll#crc32
 */
const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** The unsigned CRC-32 of `buf`. */
export function crc32(buf: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** Java UtilAll.crc32: CRC-32 & 0x7FFFFFFF. */
export function javaCrc32(buf: Uint8Array): number {
  return crc32(buf) & 0x7fffffff;
}
