/**
 * The histogram host-probe-plugin.ts keeps of its delta events' call times (O(1) a call, so the
 * probe adds next to nothing to the host it measures), and its quantiles for host-share.ts:
 * 0.05 µs steps below 10 µs, 10 µs steps below 1 ms, then one bucket for the rest.
 */
export const BUCKETS = 300

export function bucketOf(us: number): number {
  if (us < 10) return Math.floor(us * 20)
  if (us < 1000) return 200 + Math.floor((us - 10) / 10)
  return BUCKETS - 1
}

/** The upper edge (µs) of bucket i: a quantile read from the histogram is at most this. */
function bucketTop(i: number): number {
  if (i < 200) return (i + 1) / 20
  if (i < BUCKETS - 1) return 10 + (i - 199) * 10
  return Infinity
}

/** The `q` quantile (0..1) of a histogram, as the upper edge of the bucket it falls in. */
export function histogramQuantile(histogram: readonly number[], q: number): number {
  const total = histogram.reduce((a, b) => a + b, 0)
  if (total === 0) return NaN
  let seen = 0
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!
    if (seen >= q * total) return bucketTop(i)
  }
  return Infinity
}
