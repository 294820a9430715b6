/**
 * Collections that cannot outgrow a cap: the one way this code keeps a memory bounded, so that
 * a misbehaving host (or a very long process) cannot make any of them grow. A full collection
 * asked to take a new key forgets its oldest entry first (insertion order).
 */

/** Drops the oldest entry of a full `map` that `mayGo` allows (every one by default). */
export function makeRoom<K, V>(map: Map<K, V>, cap: number, mayGo?: (value: V, key: K) => boolean, onEvict?: (key: K, value: V) => void): void {
  if (map.size < cap) return
  for (const [key, value] of map) {
    if (mayGo && !mayGo(value, key)) continue
    map.delete(key)
    onEvict?.(key, value)
    return
  }
}

/** Sets `key` in a map of at most `cap` entries; a key already there keeps its place. */
export function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, cap: number): void {
  if (!map.has(key)) makeRoom(map, cap)
  map.set(key, value)
}

export type BoundedOptions<K, V> = {
  /**
   * Writing a key already held moves it to the back, so it is forgotten last; and with it
   * getOrCreate is least-recently-used. Without it an entry keeps the place of its first write.
   */
  refresh?: boolean
  /** Told of each entry dropped to make room (not of plain deletes). */
  onEvict?: (key: K, value: V) => void
}

export class BoundedMap<K, V> extends Map<K, V> {
  constructor(
    readonly cap: number,
    private readonly options: BoundedOptions<K, V> = {},
  ) {
    super()
  }

  override set(key: K, value: V): this {
    if (this.options.refresh) super.delete(key)
    else if (super.has(key)) return super.set(key, value)
    makeRoom(this, this.cap, undefined, this.options.onEvict)
    return super.set(key, value)
  }

  getOrCreate(key: K, make: () => V): V {
    const found = super.get(key)
    if (found !== undefined && !this.options.refresh) return found
    const value = found ?? make()
    this.set(key, value)
    return value
  }
}

/** Adds `value` to a set of at most `cap` values as its newest, the oldest going first when full. */
export function addNewest<T>(set: Set<T>, value: T, cap: number): void {
  set.delete(value)
  if (set.size >= cap) {
    const oldest = set.values().next()
    if (!oldest.done) set.delete(oldest.value)
  }
  set.add(value)
}
