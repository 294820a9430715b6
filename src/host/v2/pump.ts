/**
 * The event pump over `ctx.event.subscribe({ signal })`. Nothing escapes it: a handler that throws
 * is reported and the next event read; a stream that ends or throws is subscribed again after a
 * backoff (1 s doubling to 60 s, reset by any event), and after MAX_FRUITLESS empty subscriptions
 * in a row it stops and says so once, rather than spin against a host that has gone.
 */
import type { CancelTimer, TimeSource } from "../../core/clock.ts"
import { errorText } from "../../core/logger.ts"
import type { LogLevel } from "../../core/port.ts"

export const RESUBSCRIBE_BASE_MS = 1_000
export const RESUBSCRIBE_MAX_MS = 60_000
export const MAX_FRUITLESS = 50

export type PumpDeps = {
  subscribe: (signal: AbortSignal) => unknown
  onEvent: (event: unknown) => void
  time: TimeSource
  log: (level: LogLevel, message: string) => void
}

export class EventPump {
  private readonly controller = new AbortController()
  private stopped = false
  private retryTimer?: CancelTimer
  private wakeRetry?: () => void
  private iterator?: AsyncIterator<unknown>
  private fruitless = 0
  /** Subscriptions opened so far (for tests and status). */
  subscriptions = 0
  readonly done: Promise<void>

  constructor(private readonly deps: PumpDeps) {
    this.done = this.run()
  }

  stop(): void {
    if (this.stopped) return
    this.stopped = true
    this.controller.abort()
    this.retryTimer?.()
    this.wakeRetry?.()
    const it = this.iterator
    this.iterator = undefined
    try {
      void Promise.resolve(it?.return?.()).catch(() => undefined)
    } catch {
      // An iterator that throws on return is already finished as far as we are concerned.
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let delivered = false
      try {
        delivered = await this.readOnce()
      } catch (error) {
        if (!this.stopped) this.deps.log("warn", `event stream failed: ${errorText(error)}; subscribing again`)
      }
      if (this.stopped) return
      this.fruitless = delivered ? 0 : this.fruitless + 1
      if (this.fruitless >= MAX_FRUITLESS) {
        this.deps.log("error", `event stream gave nothing ${MAX_FRUITLESS} times in a row; auto-resume stops listening`)
        return
      }
      await this.sleep(Math.min(RESUBSCRIBE_BASE_MS * 2 ** Math.max(0, this.fruitless - 1), RESUBSCRIBE_MAX_MS))
    }
  }

  /** One subscription, read to its end. True when it delivered at least one event. */
  private async readOnce(): Promise<boolean> {
    this.subscriptions++
    const iterable = (await this.deps.subscribe(this.controller.signal)) as AsyncIterable<unknown> | undefined
    const make = iterable?.[Symbol.asyncIterator]
    if (typeof make !== "function") throw new Error("event.subscribe did not return an async iterable")
    const iterator = make.call(iterable)
    this.iterator = iterator
    let delivered = false
    while (!this.stopped) {
      const step = await iterator.next()
      if (step.done || this.stopped) break
      delivered = true
      this.fruitless = 0
      try {
        this.deps.onEvent(step.value)
      } catch (error) {
        this.deps.log("warn", `event handler failed: ${errorText(error)}`)
      }
    }
    if (this.iterator === iterator) this.iterator = undefined
    if (!this.stopped) this.deps.log("info", "event stream ended; subscribing again")
    return delivered
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeRetry = resolve
      this.retryTimer = this.deps.time.schedule(ms, () => {
        this.retryTimer = undefined
        resolve()
      })
    })
  }
}
