/**
 * Preloaded into a bot child with `--import <this file>` and LOADED_MODULES_FILE set: every module
 * the process loads (its URL) is appended to that file, one a line, by a loader hook
 * (https://nodejs.org/api/module.html#customization-hooks), so that a test sees what a start
 * loaded, dynamic imports included. Plain JavaScript: it loads before anything could compile it.
 */
import { register } from 'node:module';

register('./loaded-modules-hooks.mjs', import.meta.url, { data: { file: process.env.LOADED_MODULES_FILE } });
