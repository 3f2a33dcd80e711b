// SPDX-License-Identifier: Apache-2.0
// The Parquet side of interop.parquet (tests/interop/README.md): hyparquet-writer writes a
// Parquet file whose string and INT64 columns carry split block Bloom filters, and
// hyparquet reads the footer, the filters and answers membership; both are the npm
// packages installed by scripts/npm-interop (pinned there).
//
//   node parquet_tool.mjs gen DIR      write DIR/data.parquet, cut out each column chunk's
//                                      filter, write the probe values and hyparquet's answers
//   node parquet_tool.mjs verify DIR   splice the filters bloomkit wrote back into a copy of
//                                      the file; hyparquet reads them and must answer as bloomkit
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { hashParquetValue, readBloomFilter, sbbfContains } from 'hyparquet/src/bloom.js'
import { parquetWriteBuffer } from 'hyparquet-writer'

const ROWS = 100000 // rows of the file, and present and absent probes per column
const ROW_GROUPS = [60000, 40000]
const FPP = { s: 0.01, n: 0.001 }
const GOLDEN = 0x9e3779b97f4a7c15n // odd: i -> i * GOLDEN is a bijection of 64-bit integers

// The same strings as the other interop tests (README.md): 3 to 50 bytes, non-ASCII UTF-8.
const key = (i) => `k${i}${i % 7 === 0 ? '-é日' : ''}-${'x'.repeat(i % 37)}`
const absent = (i) => `a${i}-${'y'.repeat(i % 23)}`
const added = (i) => `n${i}-${'z'.repeat(i % 19)}`
// INT64 values spread over the whole range, negatives included.
const int64 = (i) => BigInt.asIntN(64, BigInt(i) * GOLDEN)
const VALUES = {
  s: { present: key, absent, added },
  n: { present: int64, absent: (i) => int64(i + 1000000), added: (i) => int64(i + 2000000) },
}

// A value's plain encoding, what the filter hashes: a string's UTF-8 bytes, an INT64's
// 8 bytes little-endian.
function plain(v) {
  if (typeof v === 'string') return Buffer.from(v, 'utf8')
  const b = Buffer.alloc(8)
  b.writeBigInt64LE(v)
  return b
}

// Probe values: present(0..ROWS-1), absent(0..ROWS-1), added(0..ROWS-1), each as a
// 4-byte little-endian length and the plain bytes.
function keysFile(col) {
  const parts = []
  for (const kind of ['present', 'absent', 'added']) {
    for (let i = 0; i < ROWS; ++i) {
      const p = plain(VALUES[col][kind](i))
      const len = Buffer.alloc(4)
      len.writeUInt32LE(p.length)
      parts.push(len, p)
    }
  }
  return Buffer.concat(parts)
}

// Every column chunk's filter as the footer (FileMetaData) places it:
// ColumnMetaData.bloom_filter_offset and bloom_filter_length.
function chunks(bytes) {
  const meta = parquetMetadata(new Uint8Array(bytes))
  const out = []
  let first = 0
  meta.row_groups.forEach((rg, r) => {
    for (const c of rg.columns) {
      const md = c.meta_data
      const col = md.path_in_schema.join('.')
      if (md.bloom_filter_offset === undefined || md.bloom_filter_length === undefined) {
        throw new Error(`row group ${r} column ${col}: no bloom_filter_offset/length in the footer`)
      }
      const element = meta.schema.find((e) => e.name === col)
      out.push({ col, r, first, rows: Number(rg.num_rows), offset: Number(md.bloom_filter_offset),
        length: md.bloom_filter_length, element })
    }
    first += Number(rg.num_rows)
  })
  return out
}

// hyparquet's hashes of a column's values, each computed once for all its chunks.
const hashCache = new Map()
function hashes(chunk, kind) {
  const id = `${chunk.col}.${kind}`
  if (!hashCache.has(id)) {
    hashCache.set(id, Array.from({ length: ROWS }, (_, i) => {
      const h = hashParquetValue(VALUES[chunk.col][kind](i), chunk.element)
      if (h === undefined) throw new Error(`${chunk.col}: hyparquet cannot hash ${kind}(${i})`)
      return h
    }))
  }
  return hashCache.get(id)
}

// hyparquet's answers for the filter at `offset`: '1' may be present, '0' absent.
function answers(bytes, chunk, kinds) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const reader = { view, offset: chunk.offset }
  const filter = readBloomFilter(reader)
  if (!filter) throw new Error(`${chunk.col} row group ${chunk.r}: hyparquet cannot read the filter`)
  if (reader.offset - chunk.offset !== chunk.length) {
    throw new Error(`${chunk.col} row group ${chunk.r}: filter is ${reader.offset - chunk.offset} bytes, footer says ${chunk.length}`)
  }
  const out = Buffer.alloc(kinds.length * ROWS)
  let j = 0
  for (const kind of kinds) {
    for (const h of hashes(chunk, kind)) out[j++] = sbbfContains(filter.blocks, h) ? 0x31 : 0x30
  }
  return { out, numBytes: filter.numBytes }
}

function gen(dir) {
  const s = Array.from({ length: ROWS }, (_, i) => key(i))
  const n = Array.from({ length: ROWS }, (_, i) => int64(i))
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 's', data: s, type: 'STRING', nullable: false, bloomFilter: { fpp: FPP.s } },
      { name: 'n', data: n, type: 'INT64', nullable: false, bloomFilter: { fpp: FPP.n } },
    ],
    rowGroupSize: ROW_GROUPS,
  })
  const bytes = new Uint8Array(buffer)
  writeFileSync(join(dir, 'data.parquet'), bytes)
  const lines = []
  for (const c of chunks(bytes)) {
    const base = join(dir, `${c.col}.rg${c.r}`)
    writeFileSync(`${base}.bloom`, bytes.subarray(c.offset, c.offset + c.length))
    const { out, numBytes } = answers(bytes, c, ['present', 'absent'])
    writeFileSync(`${base}.ans`, out)
    lines.push(`${c.col} ${c.r} ${c.first} ${c.rows} ${FPP[c.col]} ${numBytes}`)
    console.log(`parquet_tool: ${c.col} row group ${c.r}: ${c.rows} rows, filter of ${numBytes} bytes at offset ${c.offset} (fpp ${FPP[c.col]})`)
  }
  writeFileSync(join(dir, 'chunks.txt'), lines.join('\n') + '\n')
  for (const col of ['s', 'n']) writeFileSync(join(dir, `${col}.keys`), keysFile(col))
  // The string column's present values as text lines, for the CLI.
  writeFileSync(join(dir, 's.txt'), s.join('\n') + '\n')
}

function verify(dir) {
  const original = readFileSync(join(dir, 'data.parquet'))
  const spliced = Buffer.from(original)
  const list = chunks(original)
  for (const c of list) {
    const back = readFileSync(join(dir, `${c.col}.rg${c.r}.back.bloom`))
    if (back.length !== c.length) throw new Error(`${c.col} row group ${c.r}: bloomkit wrote ${back.length} bytes for a ${c.length}-byte slot`)
    back.copy(spliced, c.offset)
  }
  writeFileSync(join(dir, 'spliced.parquet'), spliced)
  let failures = 0
  for (const c of list) {
    const want = readFileSync(join(dir, `${c.col}.rg${c.r}.back.ans`))
    const { out } = answers(spliced, c, ['present', 'absent', 'added'])
    let differ = 0
    let missing = 0
    for (let i = 0; i < out.length; ++i) differ += out[i] !== want[i] ? 1 : 0
    for (let i = c.first; i < c.first + c.rows; ++i) missing += out[i] !== 0x31 ? 1 : 0
    for (let i = 0; i < c.rows / 2; ++i) missing += out[2 * ROWS + i] !== 0x31 ? 1 : 0
    if (differ !== 0 || missing !== 0 || want.length !== out.length) {
      console.error(`parquet_tool: FAIL ${c.col} row group ${c.r}: ${differ} of ${out.length} answers differ from bloomkit's, ${missing} present or added values missing`)
      ++failures
    } else {
      console.log(`parquet_tool: ${c.col} row group ${c.r}: hyparquet reads bloomkit's filter from the footer's offset; ${out.length} answers equal bloomkit's, ${c.rows} present and ${c.rows / 2} added values found`)
    }
  }
  // The spliced file is still a Parquet file whose data hyparquet reads unchanged.
  return parquetReadObjects({ file: spliced.buffer.slice(spliced.byteOffset, spliced.byteOffset + spliced.byteLength) }).then((rows) => {
    const bad = rows.length !== ROWS || rows.some((row, i) => row.s !== key(i) || row.n !== int64(i))
    if (bad) {
      console.error('parquet_tool: FAIL the spliced file\'s rows differ from the ones written')
      ++failures
    }
    if (failures > 0) process.exit(1)
  })
}

const [mode, dir] = process.argv.slice(2)
if (mode === 'gen') gen(dir)
else if (mode === 'verify') await verify(dir)
else {
  console.error('usage: node parquet_tool.mjs gen|verify DIR')
  process.exit(2)
}
