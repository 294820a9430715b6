/**
 * Whether a lease check must write the pause file or may only read it. Pure; times are given.
 *
 * A check used to rewrite the file (lock, temp file, fsync, rename) every check interval only to
 * move our lease's `at` stamp. Now it writes when the file would otherwise be wrong or about to
 * be: our lease missing or not as we would write it, our lease half way to lapsing, or the tidy
 * (claims, drops, stamps) changing anything else. Otherwise the file already says what a write
 * would say, bar our `at`, and that stamp still has more than half its validity to run.
 */
import { tidyPauses, type Lease, type PauseState, type TidyInput } from "./pause-leases.ts"

export type RefreshInput = Omit<TidyInput, "self"> & {
  /** Our lease as a write now would put it (stamped `now`). */
  self: Lease
  /** How far apart our checks are. */
  intervalMs: number
}

/**
 * `serialize` is how the file would be written (serializePauseState): comparing what would be
 * written with what is there says "nothing would change" without a field-by-field rule here.
 */
export function leaseWriteDue(state: PauseState, input: RefreshInput, serialize: (state: PauseState) => string): boolean {
  const { now, self, intervalMs, ...tidy } = input
  const mine = state.leases?.find((l) => l.id === self.id)
  if (!mine || !sameApartFromAt(mine, self)) return true
  // A stamp ahead of the clock (the clock stepped back) would keep the lease looking fresh long after we are gone.
  if (mine.at > now) return true
  if (now - mine.at >= refreshAge(self.ttlMs, intervalMs)) return true
  // The tidy with our lease exactly as the file has it: any difference is a claim, a drop or a stamp to write.
  const tidied = tidyPauses(state, { ...tidy, now, self: mine }).state
  return serialize(canonical(tidied)) !== serialize(canonical(state))
}

/**
 * The age at which our lease is rewritten: half its validity. The validity is four intervals
 * (LEASE_LAPSE_INTERVALS), so a check that finds the lease younger than two skips the write, the
 * next one finds it younger than three and writes, and the lease lapses only past four: that
 * next check may run a whole interval late and still refresh it in time, so no other process
 * sees our lease lapsed while we run. Clamped up to MIN_LEASE_TTL_MS the slack is larger;
 * clamped down to MAX_LEASE_TTL_MS (intervals over 15 minutes) the age is lowered to keep one
 * whole interval of slack (at worst a write at every check, as before). An interval that is not
 * a number gets a write at every check too.
 */
export function refreshAge(ttlMs: number, intervalMs: number): number {
  if (!Number.isFinite(intervalMs) || !Number.isFinite(ttlMs)) return 0
  return Math.max(0, Math.min(ttlMs / 2, ttlMs - 2 * intervalMs))
}

function sameApartFromAt(a: Lease, b: Lease): boolean {
  return a.since === b.since && a.ttlMs === b.ttlMs && a.pid === b.pid && a.host === b.host
}

/**
 * Orders that mean nothing, made equal: each writer lists its own lease first (the CLI lists
 * them by age), and holds are looked up by session. Without this two processes would take each
 * other's file for a change and rewrite it in turn at every check. `sessions` keeps its order
 * (oldest first), which every writer preserves.
 */
function canonical(state: PauseState): PauseState {
  const byKey = <T>(key: (item: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
  const out: PauseState = { ...state }
  if (state.holds) out.holds = [...state.holds].sort(byKey((h) => h.session))
  if (state.leases) {
    out.leases = [...state.leases].sort(byKey((l) => l.id)).map((l) => {
      const lease: Lease = { id: l.id, since: l.since, at: l.at, ttlMs: l.ttlMs }
      if (l.pid !== undefined) lease.pid = l.pid
      if (l.host !== undefined) lease.host = l.host
      return lease
    })
  }
  return out
}
