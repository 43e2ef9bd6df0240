// `labbot` commands: ingest, ask, eval, status, serve, worker, reindex, backup, restore (each in src/cli/).
import { Command } from 'commander';
import { ConfigError } from './config.ts';
import { redactUrls } from './log.ts';
import { addAskCommand } from './cli/ask.ts';
import { addBackupCommands } from './cli/backup.ts';
import { addEvalCommand } from './cli/eval.ts';
import { addIngestCommand } from './cli/ingest.ts';
import { addReindexCommand } from './cli/reindex.ts';
import { addServeCommand } from './cli/serve.ts';
import { addStatusCommand } from './cli/status.ts';
import { addWorkerCommand } from './cli/worker.ts';

export function buildProgram(): Command {
  const program = new Command('labbot').description(
    "Answers a lab's questions from its own papers, protocols, slides and wiki, with citations.",
  );
  // In this order: `labbot --help` lists the commands as they are added.
  addIngestCommand(program);
  addAskCommand(program);
  addEvalCommand(program);
  addStatusCommand(program);
  addServeCommand(program);
  addWorkerCommand(program);
  addReindexCommand(program);
  addBackupCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    // Errors from client libraries can quote a connection URL: never print its password.
    if (err instanceof ConfigError) console.error(redactUrls(err.message));
    else console.error(redactUrls(`labbot: ${(err as Error).message}`));
    process.exitCode = 2;
  }
}

await main(process.argv);
