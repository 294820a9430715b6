/**
 * Runs every scenario of the shared table against both adapters. A scenario passes only when
 * each adapter matches the table at every check AND the two adapters agree with each other.
 */
import { describe, expect, test } from "bun:test"
import { SCENARIOS, type Scenario } from "./table.ts"
import { v1Driver, v2Driver, type Driver, type Outcome } from "./drivers.ts"

const STEP_MS = 1000

async function play(scenario: Scenario, driver: Driver): Promise<Outcome[]> {
  const seen: Outcome[] = []
  try {
    await driver.flush()
    for (const step of scenario.steps) {
      if (step.do === "silence") {
        for (let left = step.ms; left > 0; left -= STEP_MS) {
          driver.time.advance(Math.min(STEP_MS, left))
          await driver.flush()
        }
      } else if (step.do === "check") {
        const now = driver.outcome()
        seen.push(step.cancelledByUser === undefined ? { continues: now.continues, aborts: now.aborts } : now)
      } else {
        driver.step(step)
        await driver.flush()
      }
    }
  } finally {
    driver.stop()
  }
  return seen
}

function expected(scenario: Scenario): Outcome[] {
  return scenario.steps.flatMap((s) =>
    s.do !== "check" ? [] : [s.cancelledByUser === undefined ? { continues: s.continues, aborts: s.aborts } : { continues: s.continues, aborts: s.aborts, cancelledByUser: s.cancelledByUser }],
  )
}

describe("shared scenarios, both adapters", () => {
  for (const scenario of SCENARIOS) {
    test(`${scenario.name}: ${scenario.why}`, async () => {
      const options = scenario.options ?? {}
      const v1 = await play(scenario, v1Driver(options))
      const v2 = await play(scenario, v2Driver(options))
      expect({ v1, v2 }).toEqual({ v1: expected(scenario), v2: expected(scenario) })
      expect(v2).toEqual(v1)
    })
  }
})
