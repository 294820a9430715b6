/** The whole labelled corpus of finished turns. */
import { ACTION_INTENT, ACTION_INTENT_NEAR_MISSES } from "./action-intent.ts"
import { CELEBRATION, CELEBRATION_NEAR_MISSES } from "./celebration.ts"
import { DEAD_STREAM, DEAD_STREAM_NEAR_MISSES } from "./dead-stream.ts"
import { DONE, DONE_NEAR_MISSES } from "./done.ts"
import { HAND_OFF, HAND_OFF_NEAR_MISSES } from "./hand-off.ts"
import { HARD_NEGATIVES } from "./hard-negatives.ts"
import { LONG_REPLIES } from "./long-replies.ts"
import { PLAIN } from "./plain.ts"
import { READY, READY_NEAR_MISSES } from "./ready.ts"
import { SECOND_BATCH } from "./second-batch.ts"
import { STOP, STOP_NEAR_MISSES } from "./stop.ts"
import { TOOL_CALL, TOOL_CALL_NEAR_MISSES } from "./tool-call.ts"
import type { Sample } from "./types.ts"

export const CORPUS: readonly Sample[] = [
  ...TOOL_CALL,
  ...TOOL_CALL_NEAR_MISSES,
  ...DEAD_STREAM,
  ...DEAD_STREAM_NEAR_MISSES,
  ...DONE,
  ...DONE_NEAR_MISSES,
  ...CELEBRATION,
  ...CELEBRATION_NEAR_MISSES,
  ...STOP,
  ...STOP_NEAR_MISSES,
  ...READY,
  ...READY_NEAR_MISSES,
  ...ACTION_INTENT,
  ...ACTION_INTENT_NEAR_MISSES,
  ...HAND_OFF,
  ...HAND_OFF_NEAR_MISSES,
  ...PLAIN,
  ...SECOND_BATCH,
  ...HARD_NEGATIVES,
  ...LONG_REPLIES,
]
