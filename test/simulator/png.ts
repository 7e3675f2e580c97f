/** Real, small PNG images for media results: a colour gradient, deflated with node:zlib. */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = buildCrcTable();

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

type Rgb = readonly [number, number, number];

/** An RGB gradient; `seed` shifts the colours so different jobs give different pictures. */
export function gradientPng(width = 64, height = 64, seed = 0): Buffer {
  return rgbPng(width, height, (x, y) => [
    (Math.round((x / (width - 1)) * 255) + seed * 37) & 0xff,
    (Math.round((y / (height - 1)) * 255) + seed * 11) & 0xff,
    (160 + seed * 53) & 0xff,
  ]);
}

/** An image of one colour. */
export function solidPng(width: number, height: number, colour: Rgb): Buffer {
  return rgbPng(width, height, () => colour);
}

/** The colours a prompt may name to get a picture of that colour (`/image a red square`). */
export const NAMED_COLOURS: Readonly<Record<string, Rgb>> = {
  red: [255, 0, 0],
  green: [0, 255, 0],
  blue: [0, 0, 255],
  yellow: [255, 255, 0],
  black: [0, 0, 0],
  white: [255, 255, 255],
};

/** The first colour `prompt` names as a word, if any. */
export function colourNamedIn(prompt: string): Rgb | undefined {
  const word = prompt
    .toLowerCase()
    .split(/[^a-z]+/)
    .find((w) => Object.hasOwn(NAMED_COLOURS, w));
  return word ? NAMED_COLOURS[word] : undefined;
}

function rgbPng(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  const rowLength = 1 + width * 3;
  const pixels = Buffer.alloc(rowLength * height);
  for (let y = 0; y < height; y++) {
    pixels[y * rowLength] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const offset = y * rowLength + 1 + x * 3;
      const [r, g, b] = pixel(x, y);
      pixels[offset] = r;
      pixels[offset + 1] = g;
      pixels[offset + 2] = b;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  header[10] = 0;
  header[11] = 0;
  header[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
