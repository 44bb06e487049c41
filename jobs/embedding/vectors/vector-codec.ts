/**
 * Vectors are stored in Redis as little-endian float32 bytes: 4 bytes a dimension, a
 * quarter of the size of a JSON array and read back without parsing. The byte order is
 * written explicitly so a dump moved between machines still decodes.
 */
export function encodeVector(vector: Float32Array): Buffer {
  const buf = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i], i * 4);
  return buf;
}

export function decodeVector(buf: Buffer): Float32Array {
  if (buf.length % 4 !== 0) {
    throw new Error(`A stored vector must be a multiple of 4 bytes, got ${buf.length}`);
  }
  const out = new Float32Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}
