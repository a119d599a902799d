/**
 * A small PNG decoder for checking screenshots (8-bit RGB/RGBA, non-interlaced: what Chromium writes), and pixel
 * counts over the decoded image.
 */
import zlib from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, row after row. */
  data: Buffer;
}

export function decodePng(png: Buffer): Image {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const body = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      colorType = body[9];
      if (body[8] !== 8 || body[12] !== 0 || (colorType !== 2 && colorType !== 6)) throw new Error('only 8-bit RGB/RGBA non-interlaced PNGs');
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      let v = line[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      out[o] = line[x * bpp];
      out[o + 1] = line[x * bpp + 1];
      out[o + 2] = line[x * bpp + 2];
      out[o + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return { width, height, data: out };
}

/** How many pixels (of rows [from, to)) are within `tolerance` (per channel) of the colour `#rrggbb`. */
export function countColor(img: Image, hex: string, tolerance = 40, rows: [number, number] = [0, img.height]): number {
  const r = parseInt(hex.slice(1, 3), 16);
  const g = parseInt(hex.slice(3, 5), 16);
  const b = parseInt(hex.slice(5, 7), 16);
  let n = 0;
  for (let o = rows[0] * img.width * 4; o < Math.min(rows[1], img.height) * img.width * 4; o += 4) {
    if (Math.abs(img.data[o] - r) <= tolerance && Math.abs(img.data[o + 1] - g) <= tolerance && Math.abs(img.data[o + 2] - b) <= tolerance) n++;
  }
  return n;
}

/** The share of pixels that are not (near) white: 0 for a blank page. */
export function inkRatio(img: Image): number {
  let n = 0;
  for (let o = 0; o < img.data.length; o += 4) if (img.data[o] < 235 || img.data[o + 1] < 235 || img.data[o + 2] < 235) n++;
  return n / (img.width * img.height);
}

/** How many distinct colours (quantised to 4 bits a channel) the image has. */
export function distinctColors(img: Image): number {
  const seen = new Set<number>();
  for (let o = 0; o < img.data.length; o += 4) seen.add(((img.data[o] >> 4) << 8) | ((img.data[o + 1] >> 4) << 4) | (img.data[o + 2] >> 4));
  return seen.size;
}
