// `labbot serve`: the bot, its HTTP API and dashboard, and (unless turned off) a queue worker.
import type { Command } from 'commander';
import { startServe } from '../serve.ts';
import { setup } from './context.ts';
import { onShutdown } from './shutdown.ts';

/** What `serve` prints when it made the dashboard's token itself (Jupyter-style: the link on a line of its own). */
function dashboardBanner(link: string): string {
  return [
    '',
    'No LABBOT_ADMIN_TOKEN is set: the dashboard takes a token made for this start. Open it with:',
    '',
    `    ${link}`,
    '',
    'Every /admin request needs this token, from this machine too, and through a reverse proxy too: a',
    'proxy in front does not open the dashboard, but anyone holding this link can read every document',
    'and re-index. It changes at every start; set LABBOT_ADMIN_TOKEN for one that lasts.',
    '',
  ].join('\n');
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('index configured sources if needed, then serve the ask API, webhooks and a queue worker')
    .action(async () => {
      const { config, log } = setup('service');
      const running = await startServe(config, log);
      const slack = running.slack
        ? `Slack over ${running.slack.mode === 'socket' ? 'Socket Mode' : `${running.url}/slack/events`}`
        : 'Slack is not configured (no SLACK_BOT_TOKEN)';
      const admin = running.dashboardRefused
        ? 'no dashboard'
        : `dashboard ${running.url}/admin` +
          `${running.dashboardTokenGenerated ? ' (no LABBOT_ADMIN_TOKEN: a token for this start, in the link printed on stdout)' : ''}`;
      log.info(
        { url: running.url, worker: Boolean(running.queue?.worker) },
        `labbot is serving: POST /api/ask, /hooks/wiki/<source>, ${admin}; ${slack}`,
      );
      // On stdout, not in the log: logs are kept and shipped, and this link opens every document.
      if (running.dashboardTokenGenerated && running.dashboardLink) console.log(dashboardBanner(running.dashboardLink));
      onShutdown(log, () => running.close());
    });
}
