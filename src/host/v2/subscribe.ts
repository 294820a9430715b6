/**
 * `ctx.event.subscribe` as the builds have taken it: the newest `{ signal, types }` (the host
 * sends only the types we read, and the signal ends the stream), some intermediate builds an
 * array of types, and older ones `{ signal }` with no filter. A build that refuses the argument's
 * shape (a TypeError) is asked again in the next form, and the form that worked is kept for
 * every resubscription. A build that ignores the filter just sends more: every event is decoded
 * and unknown ones are mere activity (events.ts), so nothing depends on the filter holding.
 * Without the signal (the array form) the pump still ends the stream through `return()`.
 */
import { callCtx } from "./context.ts"

type Form = "options" | "types" | "plain"
const FORMS: readonly Form[] = ["options", "types", "plain"]

export function eventSubscriber(ctx: unknown, types: readonly string[], log: (message: string) => void): (signal: AbortSignal) => Promise<unknown> {
  let form = 0
  const argument = (f: Form, signal: AbortSignal) => (f === "options" ? { signal, types: [...types] } : f === "types" ? [...types] : { signal })
  return async (signal) => {
    for (;;) {
      try {
        return await callCtx(ctx, "event", "subscribe", argument(FORMS[form]!, signal))
      } catch (error) {
        if (!(error instanceof TypeError) || form >= FORMS.length - 1) throw error
        form++
        log(`event.subscribe refused its argument (${error.message.slice(0, 120)}); subscribing in the ${FORMS[form]} form`)
      }
    }
  }
}
