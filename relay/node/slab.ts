/** Memory for the frames the Node bridge forwards as bytes. */

const SLAB_BYTES = 256 * 1024;

/**
 * Uninitialized memory for forwarded frames, sliced from 256 KiB slabs (a
 * frame over an eighth of that gets its own). Like Node's own 8 KiB pool,
 * larger: a slab is never reused, it goes when its last slice was written.
 */
export function slabAllocator(): (size: number) => Buffer {
  let slab = Buffer.allocUnsafeSlow(0);
  let used = 0;
  return (size) => {
    if (size > SLAB_BYTES / 8) return Buffer.allocUnsafeSlow(size);
    if (used + size > slab.length) {
      slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      used = 0;
    }
    const slice = slab.subarray(used, used + size);
    used = (used + size + 7) & ~7;
    return slice;
  };
}
