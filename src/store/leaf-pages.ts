/**
 * Reading a table b-tree's leaf pages straight from a database image (SQLite's file format,
 * sqlite.org/fileformat2.html, "B-tree Pages"): which rows a leaf page holds, by rowid.
 */

/** A table b-tree leaf page's type byte. */
const TABLE_LEAF = 0x0d;

/** The first page holds the 100-byte file header (with counters every write changes) before its b-tree page header. */
export const FILE_HEADER_BYTES = 100;

/** A varint at `at` (1 to 9 bytes, big-endian, 7 bits a byte and 8 in the ninth): its value and the offset after it; null past a safe integer. */
function varint(bytes: Buffer, at: number): { readonly value: number; readonly next: number } | null {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) return null;
    value = i === 8 ? value * 256 + byte : value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER) return null;
    if (i === 8 || byte < 0x80) return { value, next: at + i + 1 };
  }
  return null;
}

/**
 * The rowids of the cells on page `pageno` (1-based) of `image`, in cell order, when it is a table
 * b-tree leaf page; null for any other page, a page outside the image, or a rowid beyond a safe
 * integer (negative rowids included).
 */
export function leafRowids(image: Buffer, pageSize: number, pageno: number): number[] | null {
  const start = (pageno - 1) * pageSize;
  const header = start + (pageno === 1 ? FILE_HEADER_BYTES : 0);
  if (start + pageSize > image.length || image[header] !== TABLE_LEAF) return null;
  const cells = image.readUInt16BE(header + 3);
  const rowids: number[] = [];
  for (let i = 0; i < cells; i++) {
    const cell = start + image.readUInt16BE(header + 8 + 2 * i);
    const payload = varint(image, cell);
    const rowid = payload && varint(image, payload.next);
    if (!rowid || cell >= start + pageSize) return null;
    rowids.push(rowid.value);
  }
  return rowids;
}
