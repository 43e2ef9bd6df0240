// `labbot eval`: retrieval (and with --answers, answer) quality on a questions file.
import { Option, type Command } from 'commander';
import { ConfigError, groupsForChannel } from '../config.ts';
import { loadQuestionSets } from '../eval/files.ts';
import { formatReport } from '../eval/report.ts';
import { runEval } from '../eval/run.ts';
import { SPLITS, type Split } from '../eval/split.ts';
import { withApp } from './context.ts';
import { positiveInt } from './options.ts';

export function addEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('evaluate retrieval (and with --answers the whole ask path) on a questions file')
    .argument('[questions]', 'JSON lines: {"id","question","doc_id","answers":[...]}')
    .option('--k <n>', 'passages per question (default: retrieval.k, as answers use)', positiveInt)
    .option('--channel <id>', "evaluate with this channel's access groups")
    .option('--answers', 'also answer each question (model or extractive) and score the answers')
    .option('--unanswerable <file>', 'questions the corpus cannot answer: report the false-answer rate')
    .addOption(new Option('--split <split>', 'only questions about documents on this side of the dev/test split').choices(SPLITS))
    .option('--json', "print the report as JSON, with every question's passages and answer")
    .action(
      async (
        file: string | undefined,
        opts: { k?: number; channel?: string; answers?: boolean; unanswerable?: string; split?: Split; json?: boolean },
      ) => {
        if (!file && !opts.unanswerable) throw new ConfigError('Give a questions file, or --unanswerable <file>, or both.');
        const { questions, offCorpus } = loadQuestionSets(
          { questions: file, unanswerable: opts.unanswerable, split: opts.split },
          console.error,
        );
        const report = await withApp((app) =>
          runEval(app, questions, {
            k: opts.k ?? app.config.retrieval.k,
            groups: groupsForChannel(app.config.access, opts.channel),
            answers: Boolean(opts.answers),
            offCorpus,
            split: opts.split,
          }),
        );
        console.log(opts.json ? JSON.stringify(report) : formatReport(report));
      },
    );
}
