// Writes the app and tray icons as PNGs with nothing but zlib (no image tooling needed):
// a rounded square with a check mark, in the accent colour. Deterministic output, so the
// committed files only change when this script does.  Usage: node scripts/make-icons.mjs
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { Buffer } from 'node:buffer';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'resources');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** PNG (RFC 2083) of size x size RGBA pixels from pixel(x, y) -> [r, g, b, a]. */
function png(size, pixel) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size; x += 1) {
      const [r, g, b, a] = pixel(x, y);
      const at = y * (size * 4 + 1) + 1 + x * 4;
      raw[at] = r;
      raw[at + 1] = g;
      raw[at + 2] = b;
      raw[at + 3] = a;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function distanceToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** A rounded square (accent) with a white check mark; `mono` draws a black template icon. */
function icon(size, mono) {
  const radius = size * 0.22;
  const stroke = size * 0.09;
  return png(size, (x, y) => {
    const u = (x + 0.5) / size;
    const v = (y + 0.5) / size;
    const cx = Math.min(Math.max(x + 0.5, radius), size - radius);
    const cy = Math.min(Math.max(y + 0.5, radius), size - radius);
    const inside = Math.hypot(x + 0.5 - cx, y + 0.5 - cy) <= radius;
    const d = Math.min(
      distanceToSegment(u, v, 0.27, 0.52, 0.43, 0.68),
      distanceToSegment(u, v, 0.43, 0.68, 0.74, 0.34),
    );
    const onCheck = d * size <= stroke;
    if (mono) return inside && !onCheck ? [0, 0, 0, 255] : [0, 0, 0, 0];
    if (!inside) return [0, 0, 0, 0];
    return onCheck ? [255, 255, 255, 255] : [10, 102, 194, 255];
  });
}

/**
 * A Windows .ico holding one PNG per size (PNG entries are read by Windows Vista and later;
 * width and height 0 mean 256). Windows picks the size for the DPI: 16 px at 100 %, 20 at
 * 125 %, 24 at 150 %, 32 at 200 % for the tray; up to 256 for Explorer.
 */
function ico(sizes, mono) {
  const images = sizes.map((size) => icon(size, mono));
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map((image, i) => {
    const size = sizes[i];
    const entry = Buffer.alloc(16);
    entry[0] = size >= 256 ? 0 : size;
    entry[1] = size >= 256 ? 0 : size;
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(image.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += image.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...images]);
}

/** The sizes the freedesktop Icon Theme Specification's hicolor theme lists for apps. */
const LINUX_ICON_SIZES = [16, 22, 24, 32, 48, 64, 128, 256, 512];
/** The app icon in the .ico (Explorer, Start menu, taskbar, installer). */
const APP_ICO_SIZES = [16, 20, 24, 32, 40, 48, 64, 128, 256];
/** The tray icon in the .ico (notification area at 100 % to 200 %). */
const TRAY_ICO_SIZES = [16, 20, 24, 32, 40, 48];

mkdirSync(join(out, 'icons'), { recursive: true });
const files = {
  // 1024 px: the size macOS asks for (icon_512x512@2x) and electron-builder recommends.
  'icon.png': icon(1024, false),
  'icon.ico': ico(APP_ICO_SIZES, false),
  'tray.ico': ico(TRAY_ICO_SIZES, false),
  ...Object.fromEntries(
    LINUX_ICON_SIZES.map((size) => [`icons/${size}x${size}.png`, icon(size, false)]),
  ),
  'tray.png': icon(16, false),
  'tray@2x.png': icon(32, false),
  'trayTemplate.png': icon(16, true),
  'trayTemplate@2x.png': icon(32, true),
};
for (const [name, bytes] of Object.entries(files)) writeFileSync(join(out, name), bytes);
console.log(`wrote ${Object.keys(files).length} icons into ${out}`);
