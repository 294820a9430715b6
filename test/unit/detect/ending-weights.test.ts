/**
 * The shipped classifier weights are what the training script makes of the training text, byte
 * for byte: nobody can ship weights tuned by hand or trained on text that is not in the repo.
 */
import { expect, test } from "bun:test"
import fs from "node:fs"
import { trainingText, trainWeights, WEIGHTS_FILE } from "../../../scripts/train-ending-model.ts"

test("training again on test/corpus/training reproduces src/detect/ending-weights.json", () => {
  expect(`${JSON.stringify(trainWeights())}\n` === fs.readFileSync(WEIGHTS_FILE, "utf8")).toBe(true)
}, 900_000) // about 25 s on a quiet machine; minutes when the machine is loaded

test("negative control: one label changed in the training text gives other weights", () => {
  const rows = trainingText().slice(0, 300)
  const flipped = rows.map((row, i) => (i === 0 ? { ...row, family: row.family === "none" ? "done" : "none" } : row))
  expect(JSON.stringify(trainWeights(flipped).weights) === JSON.stringify(trainWeights(rows).weights)).toBe(false)
}, 60_000)
