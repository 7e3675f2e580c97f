/**
 * Runs the gateway simulator until Ctrl+C: `node out/test/simulator/cli.js [--port N]
 * [--delay MS] [--media-queued MS] [--media-processing MS] [--mode strict-openai|litellm|local]
 * [--no-cors]` (`--no-cors`: a gateway that refuses browsers, see cors.ts).
 */
import { SIM_DIALECTS } from './dialectModes';
import type { SimDialect } from './dialectModes';
import { startGatewaySimulator } from './index';

/** `--mode <kind>`: answer as another kind of gateway (see dialectModes.ts). */
function modeFlag(args: string[]): SimDialect | undefined {
  const index = args.indexOf('--mode');
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (!(SIM_DIALECTS as readonly string[]).includes(value)) {
    console.error(`--mode needs one of ${SIM_DIALECTS.join(', ')}`);
    process.exit(2);
  }
  return value as SimDialect;
}

function numberFlag(args: string[], name: string): number | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const value = Number(args[index + 1]);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`${name} needs a non-negative number`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const simulator = await startGatewaySimulator({
    port: numberFlag(args, '--port') ?? 0,
    dialect: modeFlag(args),
    cors: args.includes('--no-cors') ? 'refuse' : 'allow',
    chunkDelayMs: numberFlag(args, '--delay'),
    mediaTimings: {
      queuedMs: numberFlag(args, '--media-queued'),
      processingMs: numberFlag(args, '--media-processing'),
    },
  });
  console.log(`Gateway simulator listening on ${simulator.baseUrl}`);
  console.log(
    'Any API key works (a key containing "forbidden" gets 403). Set the base URL above in the extension.',
  );
  console.log(
    'Scenarios: add "#sim:<name>[:arg]" to a message, e.g. #sim:slow, #sim:429, #sim:500-then-ok, #sim:drop, #sim:long:50000.',
  );
  console.log('Press Ctrl+C to stop.');
  const stop = (): void => {
    void simulator.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
