import { describe, expect, it } from 'vitest';
import { profileFor } from '../../src/model-servers/profiles/index.ts';
import { resolveVision, visionSetup } from '../../src/model-servers/vision.ts';
import type { StoredCheckup } from '../../src/model-servers/server-summary.ts';

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
    const memory = { tokenBudget: 8000, messageTokenCap: 1500 };
    const on = visionSetup({ setting: 'auto', profile: openai, model: 'gpt-4o', record: null, memory });
    expect(on.memory.imageTokens?.(1024, 1024)).toBe(765);
    const off = visionSetup({ setting: 'auto', profile: ollama, model: 'qwen3:8b', record: null, memory });
    expect(off.memory.imageTokens).toBeUndefined();
    expect(off.vision.reason).toContain('MODEL_VISION=on');
  });
});
