/**
 * The part of `node:buffer` the base64 encoder uses (workerd serves it under `nodejs_compat`; the
 * project does not load Node's own type definitions into worker code).
 */
declare module "node:buffer" {
  export const Buffer: {
    from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: "base64"): string };
  };
}
