// `labbot ask`: one question answered with citations, as text for a person or as JSON.
import type { Command } from 'commander';
import { answerText, toAskJson } from '../answer/ask-json.ts';
import { webUrl } from '../answer/links.ts';
import { noticeFlag } from '../answer/messages.ts';
import { visibleText } from '../answer/visible-text.ts';
import { askAs, type AskOutcome } from '../ask.ts';
import { doiUrl } from '../ingest/metadata/coerce.ts';
import { withApp } from './context.ts';
import { positiveInt } from './options.ts';

type Answered = Extract<AskOutcome, { kind: 'answered' }>['result'];

/** What `labbot ask` says when it has no answer to print. */
function cliFailure(outcome: Exclude<AskOutcome, { kind: 'answered' }>, channel: string | undefined): string {
  switch (outcome.kind) {
    case 'empty-question':
      return 'The question is empty.';
    case 'empty-index':
      return (
        'The index is empty: nothing has been ingested yet. Run `labbot ingest` (the configured ' +
        'sources, or `labbot ingest <folder>`), or `npm start`, which indexes them first, then ask again.'
      );
    case 'unavailable':
      return 'The index is unavailable right now (Chroma does not answer); try again shortly.';
    case 'failed':
      return `Answering failed: ${outcome.error.message}`;
    case 'refused':
      return outcome.reason === 'unknown-channel'
        ? `Unknown channel "${channel}": --channel takes one of access.channels in the config.`
        : `Refused (${outcome.reason}).`;
  }
}

// Document and model text reaches a terminal: no control character (escape sequences) or
// invisible one, and links only to cited documents (the rule Slack follows too).
function printAnswer(result: Answered): void {
  console.log(visibleText(answerText(result)));
  if (result.citations.length) {
    console.log('\nSources:');
    for (const c of result.citations) {
      const href = c.link ?? c.url;
      const url = href ? webUrl(href)?.href : undefined;
      console.log(visibleText(`  ${c.label} ${c.title}${url ? ` <${url}>` : ''}`).replace(/\n/g, ' '));
      if (c.notice) console.log(`    ${noticeFlag(result.language, c.notice)}${c.notice.doi ? ` <${doiUrl(c.notice.doi)}>` : ''}`);
      for (const q of c.quotes) console.log(`    “${visibleText(q).replace(/\s+/g, ' ')}”`);
    }
  }
  console.log(`\n(${result.model})`);
}

export function addAskCommand(program: Command): void {
  program
    .command('ask')
    .description('answer a question with citations')
    .argument('<question>')
    .option('--channel <id>', 'answer as if asked in this Slack channel (its access groups)')
    .option('--k <n>', 'passages to retrieve', positiveInt)
    .option('--json', 'print JSON')
    .action(async (question: string, opts: { channel?: string; k?: number; json?: boolean }) => {
      const outcome = await withApp((app) =>
        askAs(
          { ask: app.ask, chunkCount: () => app.catalog.chunkCount, config: app.config, log: app.log },
          // The operator at the machine may ask as any configured channel (as the admin token may).
          { question, facts: { surface: 'cli', channel: opts.channel, admin: true }, k: opts.k },
        ),
      );
      if (outcome.kind !== 'answered') {
        const why = cliFailure(outcome, opts.channel);
        if (opts.json) console.log(JSON.stringify({ error: why, outcome: outcome.kind }, null, 2));
        else process.stderr.write(`${why}\n`);
        process.exitCode = 1;
        return;
      }
      if (opts.json) console.log(JSON.stringify(toAskJson(outcome.result), null, 2));
      else printAnswer(outcome.result);
    });
}
