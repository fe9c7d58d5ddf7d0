// Running an API client command (`svc listen`, `svc trigger`; catalog.ts `apiClient`): loaded
// by main.ts only for them. They reach a server through its public API with an API key
// (api-client.ts), so this brings neither the database nor the domain; output and failures
// look as every other command's do (failure.ts).
import { ConfigError, loadConfig } from '../config.js';
import type { CommandSpec } from './catalog.js';
import { sandboxClient } from './api-client.js';
import { describeFailure, exitStatus, failureLine } from './failure.js';
import { listen, listenOptions } from './listen.js';
import { trigger, triggerEvent } from './trigger.js';
import type { Values } from './values.js';

export async function runApiCommand(spec: CommandSpec, values: Values, json: boolean): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const config = loadConfig();
    // What the command was asked is checked before the server is: a typo costs no round trip.
    const options = spec.name === 'listen' ? listenOptions(values) : null;
    const event = spec.name === 'trigger' ? triggerEvent(values) : null;
    const { api, company } = await sandboxClient(config, values);
    if (options) {
      const forwarded = await listen(api, company, options, {
        out: (line) => process.stdout.write(`${line}\n`),
        note: (line) => process.stderr.write(`${line}\n`),
        json,
        stop: stop.signal,
      });
      if (!json) process.stderr.write(`svc listen: stopped after forwarding ${forwarded} events\n`);
      return 0;
    }
    const result = await trigger(api, company, event!);
    process.stdout.write(
      json
        ? `${JSON.stringify(result)}\n`
        : `Triggered ${result.event} in ${company.name} (${company._id}): ${Object.entries(result.made)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    const failure = describeFailure(err);
    process.stderr.write(`${failureLine(spec, failure)}\n`);
    return exitStatus(failure);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
