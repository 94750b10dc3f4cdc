/** A 1×1 PNG (68 bytes): what the test peer's Bot API file server answers for every `png-…` file id. */
export const PEER_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mP8/x8AAwMCAO+ip1sAAAAASUVORK5CYII=";
