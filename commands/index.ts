import type { CommandDefinition } from '../src/discord/interactions/command-context.ts';
import { addToKnowledge } from './add-to-knowledge.ts';
import { agentSteps } from './agent-steps.ts';
import { ask } from './ask.ts';
import { askAboutMessage } from './ask-about-message.ts';
import { forgetMe } from './forget-me.ts';
import { help } from './help.ts';
import { knowledge } from './knowledge.ts';
import { memory } from './memory.ts';
import { model } from './model.ts';
import { reportAnswer } from './report-answer.ts';
import { reset } from './reset.ts';
import { schedule } from './schedule.ts';
import { settings } from './settings.ts';
import { solvedCommand } from './solved.ts';
import { steps } from './steps.ts';
import { stop } from './stop.ts';
import { summarize } from './summarize.ts';
import { tool } from './tool.ts';
import { usage } from './usage.ts';

/** Every slash and context-menu command, registered and routed in this order. */
export const commands: readonly CommandDefinition[] = [
  ask,
  tool,
  help,
  stop,
  reset,
  steps,
  agentSteps,
  reportAnswer,
  askAboutMessage,
  usage,
  settings,
  model,
  forgetMe,
  solvedCommand,
  memory,
  summarize,
  schedule,
  knowledge,
  addToKnowledge,
];
