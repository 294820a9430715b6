/**
 * What the 2.x event mapping must remember between events of one run, bounded: the session of
 * each open form (`form.replied` / `form.cancelled` name only the form), and a step's error,
 * which 2.x reports on `session.step.failed` and again on `session.execution.failed`, so the
 * core hears it once, when the host gave up.
 */
import { BoundedMap } from "../../core/bounded.ts"

const MAX_OPEN_FORMS = 256
const MAX_STEP_ERRORS = 1000

export class RunMemory {
  // A fresh entry goes to the back, so the oldest one is what the cap drops.
  private readonly forms = new BoundedMap<string, string>(MAX_OPEN_FORMS, { refresh: true })
  private readonly stepErrors = new BoundedMap<string, unknown>(MAX_STEP_ERRORS, { refresh: true })

  rememberForm(formID: string, sessionID: string): void {
    this.forms.set(formID, sessionID)
  }

  formSession(formID: string): string | undefined {
    return this.forms.get(formID)
  }

  forgetForm(formID: string): void {
    this.forms.delete(formID)
  }

  noteStepError(sessionID: string, error: unknown): void {
    this.stepErrors.set(sessionID, error)
  }

  stepError(sessionID: string): unknown {
    return this.stepErrors.get(sessionID)
  }

  runStarted(sessionID: string): void {
    this.stepErrors.delete(sessionID)
  }

  /** The run of `sessionID` ended: its forms and its step's error are over with it. */
  runEnded(sessionID: string): void {
    this.stepErrors.delete(sessionID)
    for (const [formID, owner] of this.forms) if (owner === sessionID) this.forms.delete(formID)
  }

  get openForms(): number {
    return this.forms.size
  }

  get keptErrors(): number {
    return this.stepErrors.size
  }
}
