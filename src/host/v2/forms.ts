/**
 * Which session each open 2.x form belongs to.
 *
 * `form.created` names its session only inside the form (`data.form.sessionID`), and
 * `form.replied` / `form.cancelled` name only the form (`data.id`): the reply is tied back to
 * its session here. Bounded: the oldest form is forgotten first, and a run that ends forgets
 * its session's forms (the core drops every open request on idle anyway).
 */
const MAX_OPEN_FORMS = 256

export class FormSessions {
  private readonly sessions = new Map<string, string>()

  remember(formID: string, sessionID: string): void {
    this.sessions.delete(formID)
    if (this.sessions.size >= MAX_OPEN_FORMS) {
      const oldest = this.sessions.keys().next()
      if (!oldest.done) this.sessions.delete(oldest.value)
    }
    this.sessions.set(formID, sessionID)
  }

  lookup(formID: string): string | undefined {
    return this.sessions.get(formID)
  }

  forget(formID: string): void {
    this.sessions.delete(formID)
  }

  /** The run of `sessionID` ended: its forms are over with it. */
  forgetSession(sessionID: string): void {
    for (const [formID, owner] of this.sessions) if (owner === sessionID) this.sessions.delete(formID)
  }

  get size(): number {
    return this.sessions.size
  }
}
