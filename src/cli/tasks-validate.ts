import { EXIT } from '../core/errors.ts';
import type { Command } from './io.ts';

/** `mivas tasks validate [--pack P]`: scoring.md §11 (being written). */
export const tasksValidateCommand: Command = async (_argv, io) => {
  io.stderr.write('mivas tasks validate: not implemented yet\n');
  return EXIT.usage;
};
