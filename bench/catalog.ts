/**
 * The model catalog: parse time of a 500-model `GET /v1/models` answer, and the time from
 * opening the picker to its items being ready, with a 500-model catalog against today's fixed
 * list of configured ids. Measured in plain Node on the code the picker runs (the codec and
 * `pickerEntries`); the workbench's own paint of the quick pick is not included.
 */
import { createGatewayClient } from '../src/api/client';
import { parseCatalog, undescribedModel } from '../src/core/catalog/catalogCodec';
import { pickerEntries } from '../src/core/catalog/catalogView';
import { largeCatalog } from '../test/simulator/catalog';
import { startGatewaySimulator } from '../test/simulator';
import { median } from './report';
import type { BenchRow, SectionResult } from './report';

const RUNS = 30;
const FIXED_LIST = [
  'openai/gpt-4o-mini',
  'anthropic/claude-sonnet-4',
  'google/gemini-2.5-flash',
  'meta-llama/llama-3.3-70b-instruct',
  'deepseek/deepseek-chat',
];

function time(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

export async function benchCatalog(): Promise<SectionResult> {
  const body = JSON.stringify({ data: largeCatalog(500) });
  const parse = median(Array.from({ length: RUNS }, () => time(() => parseCatalog(JSON.parse(body)))));
  const models = parseCatalog(JSON.parse(body))!;
  const options = {
    current: 'openai/gpt-4o-mini',
    favourites: ['google/veo-3'],
    recent: ['vendor3/model-42'],
  };
  const catalogItems = median(Array.from({ length: RUNS }, () => time(() => pickerEntries(models, options))));
  const fixed = FIXED_LIST.map(undescribedModel);
  const fixedItems = median(Array.from({ length: RUNS }, () => time(() => pickerEntries(fixed, options))));

  // Cold: the first open fetches the catalog over loopback, then parses and builds the items.
  const sim = await startGatewaySimulator({ models: largeCatalog(500) });
  const client = createGatewayClient({
    baseUrl: sim.baseUrl,
    apiKey: () => 'sk-bench',
  });
  const cold: number[] = [];
  try {
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      pickerEntries(parseCatalog(await client.listModels())!, options);
      cold.push(performance.now() - started);
    }
  } finally {
    await client.close();
    await sim.close();
  }
  const coldMs = median(cold);
  const goal = 100;
  const rows: BenchRow[] = [
    {
      name: 'catalog: parse a 500-model GET /v1/models answer (JSON.parse + codec)',
      value: parse,
      unit: 'ms',
    },
    {
      name: 'model picker: items ready, 500-model catalog (warm)',
      value: catalogItems,
      unit: 'ms',
      peer: `today's fixed list (${FIXED_LIST.length} ids): ${fixedItems.toFixed(3)} ms`,
      goal: `≤ ${goal} ms`,
      ratio: catalogItems / goal,
      met: catalogItems <= goal,
    },
    {
      name: 'model picker: items ready, 500-model catalog (cold: fetch over loopback + parse)',
      value: coldMs,
      unit: 'ms',
      goal: `≤ ${goal} ms`,
      ratio: coldMs / goal,
      met: coldMs <= goal,
    },
  ];
  return {
    rows,
    notes: [
      'Picker rows time our code up to the quick pick items; the workbench paint itself is not measured.',
    ],
  };
}
