import zlib from 'node:zlib';

/**
 * A ZIP whose central directory has one record per name, all describing the same deflated `data`,
 * while only one local record (the first name's) is written, at offset 0: record i claims its
 * local record at `offsetOf(i)` (default 0, every record on the same bytes). No writer makes
 * this; it is the amplification of issue #28 (one inflated entry imported once per record).
 */
export function overlappingZip(data: Buffer, names: string[], offsetOf: (i: number) => number = () => 0): Buffer {
  const deflated = zlib.deflateRawSync(data);
  const crc = zlib.crc32(data) >>> 0;
  const first = Buffer.from(names[0] ?? 'x', 'utf8');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x800, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(0x5821, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(first.length, 26);
  const locals = Buffer.concat([local, first, deflated]);
  const centrals = names.map((n, i) => {
    const name = Buffer.from(n, 'utf8');
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0x5821, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(deflated.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offsetOf(i), 42);
    return Buffer.concat([central, name]);
  });
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(locals.length, 16);
  return Buffer.concat([locals, cd, end]);
}
