import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordsInMemory } from '../../src/model-servers/server-records.ts';
import { runOnce } from '../support/agent-harness.ts';
import { imageUrlsOf } from '../support/images.ts';
import { type ScriptedModel, apiError, finalAnswer, startScriptedModel } from '../support/fake-model.ts';
import { profileFor } from '../../src/model-servers/profiles/index.ts';
import { resolveVision, visionSetup } from '../../src/model-servers/vision.ts';
import type { StoredCheckup } from '../../src/model-servers/server-summary.ts';
import { botDependencies } from '../../src/app/bot-dependencies.ts';
import { parseConfig } from '../../src/settings/config.ts';
import { silentLogger } from '../../src/agent/logger.ts';
import { tempStore } from '../support/temp-store.ts';

const openai = profileFor('auto', 'https://api.openai.com/v1');
const ollama = profileFor('auto', 'http://localhost:11434/v1');
const deepseek = profileFor('deepseek', 'https://api.deepseek.com/v1');

/** A stored doctor's report whose images probe came out `status`. */
function checked(status: 'ok' | 'gap'): { learned: object; checkup: StoredCheckup; updatedAt: number } {
  const checkup = {
    checkedAt: '2026-01-01T00:00:00.000Z',
    provider: 'ollama',
    works: true,
    rows: [{ check: 'images', label: 'images', status, result: '', action: '' }],
  };
  return { learned: {}, checkup, updatedAt: 0 };
}

describe('MODEL_VISION', () => {
  it('is as set when on or off, whatever the model', () => {
    expect(resolveVision({ setting: 'on', profile: deepseek, model: 'deepseek-chat', record: null }).enabled).toBe(
      true,
    );
    expect(resolveVision({ setting: 'off', profile: openai, model: 'gpt-4o', record: null }).enabled).toBe(false);
  });

  it("auto: what the doctor found first, then the profile, then the model's name", () => {
    const auto = (profile: typeof openai, model: string, record: ReturnType<typeof checked> | null = null) =>
      resolveVision({ setting: 'auto', profile, model, record }).enabled;
    expect(auto(ollama, 'my-custom-model', checked('ok'))).toBe(true);
    expect(auto(ollama, 'llava:13b', checked('gap'))).toBe(false);
    expect(auto(deepseek, 'deepseek-chat')).toBe(false);
    expect(auto(openai, 'gpt-4.1-mini')).toBe(true);
    expect(auto(openai, 'gpt-4o')).toBe(true);
    expect(auto(openai, 'gpt-3.5-turbo')).toBe(false);
    expect(auto(openai, 'o3-mini')).toBe(false);
    expect(auto(ollama, 'llava:13b')).toBe(true);
    expect(auto(ollama, 'qwen2.5vl:7b')).toBe(true);
    expect(auto(ollama, 'gemma3:12b')).toBe(true);
    expect(auto(ollama, 'llama3.2-vision')).toBe(true);
    expect(auto(ollama, 'qwen3:8b')).toBe(false);
  });

  it('shows images in memory, counted by the provider rule, only with vision', () => {
    const on = visionSetup({ setting: 'auto', profile: openai, model: 'gpt-4o', record: null });
    expect(on.imageTokens?.(1024, 1024)).toBe(765);
    const off = visionSetup({ setting: 'auto', profile: ollama, model: 'qwen3:8b', record: null });
    expect(off.imageTokens).toBeUndefined();
    expect(off.vision.reason).toContain('MODEL_VISION=on');
  });
});

describe('a model that turns out not to see', () => {
  let model: ScriptedModel;
  beforeEach(async () => {
    model = await startScriptedModel();
  });
  afterEach(async () => {
    await model.close();
  });

  it('gets the images as names at once, and MODEL_VISION=auto is off from then on', async () => {
    const records = recordsInMemory();
    model.enqueue(
      (request) => {
        expect(request.messages.flatMap(imageUrlsOf)).toHaveLength(1);
        return apiError(
          500,
          'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj',
        );
      },
      (request) => {
        expect(request.messages.flatMap(imageUrlsOf)).toEqual([]);
        expect(request.messages[1]!.content).toBe(
          'Ada: what is this?\n[image: cat.png]\n[The images above are not shown: this model cannot see images.]',
        );
        return finalAnswer('I cannot see it.');
      },
    );
    const picture = {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'Ada: what is this?' },
        { type: 'text' as const, text: '[image: cat.png]' },
        { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    };
    // No retries of the 500 by the client (it would retry it twice before the bot sees it).
    const run = await runOnce(model, {
      history: [picture],
      input: 'Ada: well?',
      remember: { records },
      client: { maxRetries: 0 },
    });
    expect(run.status).toBe('answered');
    const record = records.read(model.baseURL, 'test-model');
    expect(record?.learned.images).toBe(false);
    expect(resolveVision({ setting: 'auto', profile: openai, model: 'gpt-4o', record }).enabled).toBe(false);
  });
});

describe('vision as the bot is built from its settings', () => {
  const visionOfDefault = async (environment: Record<string, string>) => {
    const loaded = parseConfig({ OPENAI_API_KEY: 'sk-1', DISCORD_TOKEN: 't', ...environment }, null, {
      purpose: 'bot',
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    const { store } = tempStore();
    try {
      const deps = await botDependencies(loaded.config, { store, instanceId: 'i', logger: silentLogger });
      return { default: deps.parts.vision(loaded.config.models.defaultName), intake: deps.images.vision };
    } finally {
      store.close();
    }
  };

  it('without MODELS_FILE, MODEL_VISION=auto judges the one model by what is known of it', async () => {
    expect(await visionOfDefault({ OPENAI_MODEL: 'gpt-4o' })).toMatchObject({
      default: { seesImages: true },
      intake: true,
    });
    expect(await visionOfDefault({ OPENAI_MODEL: 'gpt-3.5-turbo' })).toMatchObject({
      default: { seesImages: false, imageTokens: null },
      intake: false,
    });
    expect(await visionOfDefault({ OPENAI_MODEL: 'gpt-3.5-turbo', MODEL_VISION: 'on' })).toMatchObject({
      default: { seesImages: true },
    });
  });
});
